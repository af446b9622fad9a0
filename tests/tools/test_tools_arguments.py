"""Host-side argument checks against the tool's annotations (point 2 of the tool bridge)."""

import enum
from typing import Literal, Optional, TypedDict, Union

import pytest

from dspy_rust_interpreter import CodeExecutionError


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Hit(TypedDict, total=False):
    title: str
    score: float


class Query(TypedDict):
    text: str
    limit: int


def _fails(interp, code):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute(code)
    assert info.value.error_type == "TypeError"
    return str(info.value)


def test_wrong_simple_type_names_tool_parameter_expected_and_value(make_interp):
    calls = []

    def search(query: str, k: int = 3):
        calls.append(k)

    interp = make_interp(tools={"search": search})
    message = _fails(interp, "search('q', '3')")
    assert "tool 'search' failed with TypeError: argument 'k' must be int, got str ('3'); the tool was not called" in message
    assert calls == []


def test_bool_is_not_an_int_but_int_is_a_float(make_interp):
    interp = make_interp(tools={"scale": lambda x: x})
    interp.tools["scale"] = _annotated("x", float)
    assert interp.execute("scale(2)") == 2
    interp.tools["count"] = _annotated("n", int)
    assert "argument 'n' must be int, got bool (True)" in _fails(interp, "count(True)")


def _annotated(name, annotation):
    def tool(**kwargs):
        return kwargs[name]

    import inspect

    tool.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation)]
    )
    return tool


@pytest.mark.parametrize(
    ("annotation", "good", "bad", "expected"),
    [
        (str, "'a'", "1", "must be str, got int (1)"),
        (bool, "True", "1", "must be bool"),
        (type(None), "None", "0", "must be None"),
        (list[int], "[1, 2]", "[1, 'x']", "argument 'v'[1] must be int, got str ('x')"),
        (dict[str, int], "{'a': 1}", "{'a': 'b'}", "argument 'v'['a'] must be int"),
        (tuple[int, str], "(1, 'a')", "(1, 2, 3)", "must be tuple[int, str] (exactly 2 items)"),
        (Optional[int], "None", "'1'", "must be int or None"),  # noqa: UP045 -- the typing form is what is tested
        (Union[int, str], "'x'", "1.5", "must be int or str"),  # noqa: UP007 -- the typing form is what is tested
        (Literal["asc", "desc"], "'asc'", "'up'", "must be one of 'asc', 'desc', got str ('up')"),
        (Query, "{'text': 't', 'limit': 1}", "{'text': 't'}", "missing ['limit']"),
        (Query, "{'text': 't', 'limit': 1}", "{'text': 't', 'limit': 1, 'x': 0}", "unexpected [\"'x'\"]"),
        (Query, "{'text': 't', 'limit': 1}", "{'text': 't', 'limit': 'many'}", "argument 'v'['limit'] must be int"),
        (Hit, "{}", "{'score': 'high'}", "argument 'v'['score'] must be float (or int)"),
    ],
)
def test_annotation_table(make_interp, annotation, good, bad, expected):
    interp = make_interp(tools={"tool": _annotated("v", annotation)})
    interp.execute(f"tool({good})")
    message = _fails(interp, f"tool({bad})")
    assert expected in message
    assert "tool 'tool'" in message


def test_enum_by_value_or_name_arrives_as_member(make_interp):
    seen = []

    def run(mode: Mode):
        seen.append(mode)
        return mode.value

    interp = make_interp(tools={"run": run})
    assert interp.execute("run('slow'), run('FAST')") == ("slow", "fast")
    assert seen == [Mode.SLOW, Mode.FAST]
    assert "must be one of 'fast', 'slow' (Mode" in _fails(interp, "run('medium')")


def test_tuple_annotation_accepts_a_list_and_converts(make_interp):
    seen = []

    def at(point: tuple[int, int]):
        seen.append(point)

    interp = make_interp(tools={"at": at})
    interp.execute("at([1, 2])")
    assert seen == [(1, 2)] and type(seen[0]) is tuple


def test_unsupported_annotation_accepts_any_plain_value(make_interp):
    class Custom:
        pass

    def take(value: Custom):
        return value

    interp = make_interp(tools={"take": take})
    assert interp.execute("take({'any': 1})") == {"any": 1}


def test_string_annotations_are_resolved_in_the_tools_module(make_interp):
    def typed(k: "int"):
        return k

    interp = make_interp(tools={"typed": typed})
    assert "must be int" in _fails(interp, "typed('1')")


def test_positional_call_through_call_tool_is_checked_too(make_interp):
    def search(query: str, k: int = 3):
        return k

    interp = make_interp(tools={"search": search})
    assert "argument 'k' must be int" in _fails(interp, "call_tool('search', 'q', 'x')")


def test_var_args_items_are_checked(make_interp):
    def total(*values: int):
        return sum(values)

    interp = make_interp(tools={"total": total})
    assert interp.execute("total(1, 2)") == 3
    assert "argument 'values[1]' must be int" in _fails(interp, "total(1, 'x')")


def test_argument_error_is_catchable_as_type_error(make_interp):
    interp = make_interp(tools={"tool": _annotated("v", int)})
    assert interp.execute("try:\n    tool('x')\nexcept TypeError as e:\n    r = e.tool\nr") == "tool"


def test_long_wrong_value_is_quoted_briefly(make_interp):
    interp = make_interp(tools={"tool": _annotated("v", int)})
    message = _fails(interp, "tool('x' * 10_000)")
    assert len(message.splitlines()[0]) < 200
