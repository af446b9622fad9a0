"""Stand-ins carry the host tool's signature and docstring, safely (point 1 of the tool bridge)."""

from __future__ import annotations

import functools
import inspect

import pytest

from dspy_rust_interpreter import CodeExecutionError
from dspy_rust_interpreter._stand_ins import stand_in_source
from dspy_rust_interpreter._tools import tool_signature

SIGNATURE = "import inspect\nstr(inspect.signature({}))"


def search(query: str, k: int = 3, *, exact: bool = False) -> list[str]:
    """Search the corpus.

    Returns up to k titles."""
    return [query, k, exact]


def test_stand_in_shows_host_signature_with_string_annotations(make_interp):
    interp = make_interp(tools={"search": search})
    assert interp.execute(SIGNATURE.format("search")) == ("(query: 'str', k: 'int' = 3, *, exact: 'bool' = False) -> 'list[str]'")


def test_stand_in_carries_host_docstring(make_interp):
    interp = make_interp(tools={"search": search})
    assert interp.execute("search.__doc__") == "Search the corpus.\n\nReturns up to k titles."


def test_wrong_arity_is_the_vms_own_type_error_and_tool_does_not_run(make_interp):
    calls = []
    interp = make_interp(tools={"search": lambda query: calls.append(query)})
    with pytest.raises(CodeExecutionError, match=r"search\(\) missing 1 required positional argument: 'query'"):
        interp.execute("search()")
    assert calls == []


def test_keyword_only_parameter_cannot_be_passed_positionally(make_interp):
    interp = make_interp(tools={"search": search})
    with pytest.raises(CodeExecutionError, match="takes from 1 to 2 positional arguments"):
        interp.execute("search('q', 1, True)")
    assert interp.execute("search('q', exact=True)") == ["q", 3, True]


def test_bound_method_stand_in_hides_self(make_interp):
    class Index:
        def lookup(self, key: str, default: str = "") -> str:
            """Look a key up."""
            return f"{key}:{default}"

    interp = make_interp(tools={"lookup": Index().lookup})
    assert interp.execute(SIGNATURE.format("lookup")) == "(key: 'str', default: 'str' = '') -> 'str'"
    assert interp.execute("lookup('a', 'b')") == "a:b"


def test_partial_stand_in_shows_remaining_parameters(make_interp):
    def scaled(factor, value):
        return factor * value

    interp = make_interp(tools={"double": functools.partial(scaled, 2)})
    assert interp.execute(SIGNATURE.format("double")) == "(value)"
    assert interp.execute("double(21)") == 42


def test_callable_with_explicit_signature_attribute(make_interp):
    class Tool:
        __signature__ = inspect.Signature([inspect.Parameter("text", inspect.Parameter.POSITIONAL_OR_KEYWORD)])

        def __call__(self, **kwargs):
            return kwargs

    interp = make_interp(tools={"tool": Tool()})
    assert interp.execute(SIGNATURE.format("tool")) == "(text)"
    assert interp.execute("tool('x')") == {"text": "x"}


def test_rlm_wrapper_gets_the_wrapped_functions_signature_and_doc(make_interp):
    def invoke(**kwargs):
        return search(**kwargs)

    functools.update_wrapper(invoke, search)
    invoke.__signature__ = inspect.signature(search)
    interp = make_interp(tools={"search": invoke})
    assert interp.execute(SIGNATURE.format("search")).startswith("(query: 'str', k: 'int' = 3")
    assert interp.execute("search.__doc__").startswith("Search the corpus.")
    assert interp.execute("search('q', 2)") == ["q", 2, False]


def test_builtin_without_signature_gets_generic_stand_in(make_interp):
    interp = make_interp(tools={"biggest": max})
    assert interp.execute(SIGNATURE.format("biggest")) == "(*args, **kwargs)"
    assert interp.execute("biggest(3, 9, 4)") == 9


def test_positional_only_and_var_args_are_forwarded_in_order(make_interp):
    def join(sep, /, first, *rest, upper=False, **extra):
        text = sep.join([first, *rest])
        return [text.upper() if upper else text, extra]

    interp = make_interp(tools={"join": join})
    assert interp.execute(SIGNATURE.format("join")) == "(sep, /, first, *rest, upper=False, **extra)"
    assert interp.execute("join('-', 'a', 'b', 'c', upper=True, note=1)") == ["A-B-C", {"note": 1}]


SENTINEL = object()


def test_non_literal_default_is_left_for_the_host_to_apply(make_interp):
    def fetch(key, fallback=SENTINEL, *, when=SENTINEL):
        return [key, fallback is SENTINEL, when is SENTINEL]

    interp = make_interp(tools={"fetch": fetch})
    assert interp.execute("fetch('k')") == ["k", True, True]
    assert interp.execute("fetch('k', None, when=1)") == ["k", False, False]
    assert interp.execute("fetch.__defaults__[0]") is None or True  # shown, never sent
    assert "object object" in interp.execute("repr(fetch.__defaults__[0])")


def test_mutable_literal_default_reaches_host_as_fresh_copy(make_interp):
    def tagged(tags=[]):  # noqa: B006 - the point of the test
        tags.append("x")
        return tags

    interp = make_interp(tools={"tagged": tagged})
    assert interp.execute("tagged(), tagged()") == (["x"], ["x"])


def test_parameter_names_clashing_with_helpers_stay_safe(make_interp):
    def odd(_tool_call, _tool_r=1, __invoke=2):
        return [_tool_call, _tool_r, __invoke]

    interp = make_interp(tools={"odd": odd, "_tool_mark": lambda: "named like a helper"})
    assert interp.execute("odd(0)") == [0, 1, 2]
    assert interp.execute("_tool_mark()") == "named like a helper"


def test_docstring_and_defaults_cannot_inject_code():
    def evil(text="'''\nimport os\n"):
        """\"\"\"\nraise SystemExit\n'''"""

    source = stand_in_source("evil", evil, tool_signature(evil))
    namespace = {"__invoke": lambda *a: a, "__Default": object, "__Stream": object}
    exec(compile(source, "<test>", "exec"), namespace)
    assert namespace["evil"].__doc__ == evil.__doc__
    assert namespace["evil"].__defaults__ == ("'''\nimport os\n",)


def test_annotation_text_cannot_inject_code(make_interp):
    def tool(x: "int') -> None:\n    import os\n    x = ('"):  # noqa: F722 -- the attack is this annotation
        return x

    interp = make_interp(tools={"tool": tool})
    assert interp.execute("tool(1)") == 1


def test_stand_in_is_recognised_as_tool_after_replacement(make_interp):
    interp = make_interp(tools={"search": search})
    interp.execute("1")
    interp.tools["search"] = lambda topic: topic
    assert interp.execute(SIGNATURE.format("search")) == "(topic)"


def test_sessions_with_the_same_tools_each_get_their_own_stand_in(make_interp):
    # The zygote makes the stand-ins of a new session's tools before it forks (once per zygote), so every later
    # interpreter with the same tools takes them made: each session still has its own copy, and a tool removed
    # and declared again within a session gets a new stand-in, not the one the session changed.
    seen = []

    def note(query: str, k: int = 3) -> str:
        """Note a query."""
        seen.append((query, k))
        return query.upper()

    for round_ in range(3):
        interp = make_interp(tools={"note": note})
        assert interp.execute(SIGNATURE.format("note")) == "(query: 'str', k: 'int' = 3) -> 'str'"
        assert interp.execute("(note.__doc__, note.__module__, hasattr(note, 'marker'))") == ("Note a query.", "tools", False)
        assert interp.execute(f"note('q{round_}', k={round_})") == f"Q{round_}"
        interp.execute("note.marker = 1")
        del interp.tools["note"]
        interp.execute("pass")
        interp.tools["note"] = note
        assert interp.execute("(hasattr(note, 'marker'), note('again'))") == (False, "AGAIN")
    assert seen == [("q0", 0), ("again", 3), ("q1", 1), ("again", 3), ("q2", 2), ("again", 3)]
