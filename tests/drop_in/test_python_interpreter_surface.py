"""What a user switching from dspy's PythonInterpreter relies on: its constructor options, calling the
interpreter, dspy's form of invoke_tool, and the error wording dspy's modules and tests look for."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, RustInterpreter


def test_deno_command_is_accepted_and_ignored_with_a_warning(make_interp, caplog):
    with caplog.at_level("WARNING", logger="dspy_rust_interpreter"):
        interp = make_interp(deno_command=["deno", "run", "runner.js"])
    assert "ignores deno_command=['deno', 'run', 'runner.js']" in caplog.text
    assert interp.execute("1 + 1") == 2


def test_a_deno_command_that_is_not_a_list_is_a_type_error():
    with pytest.raises(TypeError, match="deno_command must be a list"):
        RustInterpreter(deno_command={"invalid": "dict"})


@pytest.mark.parametrize("option", ["enable_env_vars", "enable_network_access"])
@pytest.mark.parametrize("empty", [None, []])
def test_empty_environment_and_network_options_are_accepted(make_interp, option, empty):
    assert make_interp(**{option: empty}).execute("2") == 2


@pytest.mark.parametrize(
    ("option", "value", "offered"),
    [
        (
            "enable_env_vars",
            ["HOME"],
            r"sees none of the host's environment variables; pass the values the code needs as variables",
        ),
        ("enable_network_access", ["example.com"], r"has no network; give the code a tool that fetches"),
    ],
)
def test_environment_and_network_access_are_refused_saying_what_to_do_instead(option, value, offered):
    with pytest.raises(ValueError, match=rf"{option}=\[.*\]: the sandbox {offered}"):
        RustInterpreter(**{option: value})


def test_a_fork_of_an_interpreter_given_deno_command_does_not_warn_again(make_interp, caplog):
    interp = make_interp(deno_command=["deno"])
    caplog.clear()
    with caplog.at_level("WARNING", logger="dspy_rust_interpreter"):
        fork = interp.fork()
    try:
        assert "deno_command" not in caplog.text
    finally:
        fork.shutdown()


def test_the_interpreter_is_callable_like_dspys(make_interp):
    interp = make_interp()
    assert interp("x = 20\nx * 2") == 40
    assert interp("y + 1", {"y": 1}) == 2


def test_invoke_tool_takes_dspys_form_and_ours(make_interp):
    interp = make_interp(tools={"add": lambda a, b=0: a + b})
    interp.execute("1")  # installs the tools
    assert interp.invoke_tool("add", {"a": 1, "b": 2}) == 3
    assert interp.invoke_tool("add", [5], {"b": 1}) == 6
    with pytest.raises(CodeInterpreterError, match="Unknown tool: 'nope'"):
        interp.invoke_tool("nope", {})


@pytest.mark.parametrize("name", ["for", "class", "import", "def", "return", "if", "while"])
def test_a_keyword_as_a_variable_name_is_dspys_invalid_variable_name(make_interp, name):
    with pytest.raises(CodeInterpreterError, match=f"Invalid variable name: '{name}' is a Python keyword") as info:
        make_interp().execute("print(x)", variables={name: 42})
    assert isinstance(info.value, ValueError)


def test_a_shut_down_interpreter_says_its_session_has_ended():
    interp = RustInterpreter()
    interp.start()
    interp.shutdown()
    for method in (interp.start, lambda: interp.execute("1 + 1")):
        with pytest.raises(CodeInterpreterError, match="session has ended") as info:
            method()
        assert type(info.value) is CodeInterpreterError


def test_a_tool_that_executes_in_its_own_interpreter_is_refused_in_dspys_words():
    holder = {}

    def nested_execute():
        return holder["interp"].execute("'nested'")

    with RustInterpreter(tools={"nested_execute": nested_execute}) as interp:
        holder["interp"] = interp
        with pytest.raises(CodeExecutionError, match="cannot execute recursively"):
            interp.execute("nested_execute()")
        assert interp.execute("40 + 2") == 42


def test_submit_missing_a_field_uses_pythons_arity_wording(make_interp):
    interp = make_interp(output_fields=[{"name": "answer", "type": "str"}, {"name": "score", "type": "int"}])
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("x = 1; SUBMIT(x)")
    assert "SUBMIT() missing 1 required positional argument: 'score'; call SUBMIT(answer=..., score=...)" in str(info.value)
