"""Host tools: the mutable ``tools`` dict, calling tools from code, adding, replacing and removing them."""

from __future__ import annotations

import inspect

import pytest
from dspy.primitives.code_interpreter import CodeExecutionError, CodeInterpreterError

from ._support import RecordingTool, add_tool, assert_value, keyword_only_wrapper, printed_text


def test_tools_is_a_dict(interpreter):
    assert isinstance(interpreter.tools, dict)


def test_tools_is_the_same_object_on_every_access(interpreter):
    assert interpreter.tools is interpreter.tools


def test_tools_is_the_same_object_after_start_and_execute(interpreter):
    before = interpreter.tools
    interpreter.start()
    interpreter.execute("x = 1")
    assert interpreter.tools is before


def test_tools_is_empty_by_default(interpreter):
    assert interpreter.tools == {}


def test_constructor_tools_are_exposed_by_name(make_interpreter):
    add = add_tool()
    assert make_interpreter(tools={"add": add}).tools == {"add": add}


def test_tools_dict_mutations_are_visible_through_the_property(interpreter):
    add = add_tool()
    interpreter.tools["add"] = add
    assert interpreter.tools["add"] is add


def test_tool_called_with_keyword_arguments_round_trips_a_dict(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    assert_value(interpreter.execute("add(left=19, right=23)['value']"), 42)


def test_tool_receives_keyword_arguments_unchanged(make_interpreter):
    add = add_tool()
    make_interpreter(tools={"add": add}).execute("add(left=19, right=23)")
    assert add.calls == [((), {"left": 19, "right": 23})]


def test_tool_called_with_positional_arguments(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    assert_value(interpreter.execute("add(19, 23)['value']"), 42)


def test_tool_called_with_mixed_positional_and_keyword_arguments(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    assert_value(interpreter.execute("add(19, right=23)['value']"), 42)


def test_positional_call_binds_to_signature_of_keyword_only_wrapper(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": keyword_only_wrapper(add)})
    assert_value(interpreter.execute("add(19, 23)['value']"), 42)
    assert add.calls == [((), {"left": 19, "right": 23})]


def test_tool_string_return_value_is_usable_in_code(make_interpreter):
    greet = RecordingTool(lambda who: f"Hello, {who}")
    interpreter = make_interpreter(tools={"greet": greet})
    assert printed_text(interpreter.execute("print(greet(who='Ada').upper())")).strip() == "HELLO, ADA"


def _one_parameter_echo(parameter):
    def echo(**kwargs):
        return kwargs[parameter]

    echo.__signature__ = inspect.Signature([inspect.Parameter(parameter, inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    return echo


@pytest.mark.parametrize("parameter", ["name", "self", "tool", "args", "kwargs"])
def test_tool_keyword_argument_with_common_name_is_passed_through(make_interpreter, parameter):
    echo = RecordingTool(_one_parameter_echo(parameter))
    interpreter = make_interpreter(tools={"echo": echo})
    assert printed_text(interpreter.execute(f"print(echo({parameter}='passed'))")).strip() == "passed"
    assert echo.calls == [((), {parameter: "passed"})]


def test_tool_none_return_value_is_none_in_code(make_interpreter):
    nothing = RecordingTool(lambda: None)
    interpreter = make_interpreter(tools={"nothing": nothing})
    assert_value(interpreter.execute("nothing() is None"), True)


def test_tool_receives_nested_unicode_arguments_exactly(make_interpreter):
    echo = RecordingTool(lambda value: value)
    payload = {"k": ["ü", 1, None, True, 2.5, {"東": []}]}
    interpreter = make_interpreter(tools={"echo": echo})
    assert_value(interpreter.execute(f"echo(value={payload!r}) == {payload!r}"), True)
    assert echo.calls == [((), {"value": payload})]


def test_tool_result_persists_into_later_calls(make_interpreter):
    interpreter = make_interpreter(tools={"add": add_tool()})
    interpreter.execute("r = add(left=19, right=23)")
    assert_value(interpreter.execute("r['value']"), 42)


def test_tool_called_from_a_function_defined_in_code(make_interpreter):
    interpreter = make_interpreter(tools={"add": add_tool()})
    interpreter.execute("def via_function():\n    return add(left=40, right=2)['value']")
    assert_value(interpreter.execute("via_function()"), 42)


def test_tool_called_many_times_in_a_loop(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    code = "total = 0\nfor i in range(2000):\n    total = add(left=total, right=1)['value']\ntotal"
    assert_value(interpreter.execute(code), 2000)
    assert len(add.calls) == 2000


def test_tool_added_after_start_is_callable(interpreter):
    interpreter.start()
    interpreter.tools["add"] = add_tool()
    assert_value(interpreter.execute("add(left=19, right=23)['value']"), 42)


def test_tool_added_after_first_execute_is_callable(interpreter):
    interpreter.execute("x = 1")
    interpreter.tools["add"] = add_tool()
    assert_value(interpreter.execute("add(left=19, right=23)['value']"), 42)


def test_tools_added_with_update_are_callable(interpreter):
    interpreter.start()
    interpreter.tools.update({"add": add_tool(), "shout": RecordingTool(lambda text: text.upper())})
    assert_value(interpreter.execute("add(left=19, right=23)['value']"), 42)
    assert printed_text(interpreter.execute("print(shout(text='ok'))")).strip() == "OK"


def test_replaced_tool_runs_the_new_implementation(interpreter):
    interpreter.tools["pick"] = RecordingTool(lambda: "old")
    interpreter.execute("pick()")
    interpreter.tools["pick"] = RecordingTool(lambda: "new")
    assert printed_text(interpreter.execute("print(pick())")).strip() == "new"


def test_tool_removed_by_clear_cannot_be_called(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    assert_value(interpreter.execute("add(left=1, right=2)['value']"), 3)
    interpreter.tools.clear()
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("add(left=1, right=2)")
    assert len(add.calls) == 1


def test_tool_removed_by_del_cannot_be_called(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    assert_value(interpreter.execute("add(left=1, right=2)['value']"), 3)
    del interpreter.tools["add"]
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("add(left=1, right=2)")
    assert len(add.calls) == 1


def test_saved_reference_to_cleared_tool_cannot_call_the_host(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    interpreter.execute("saved = add")
    assert_value(interpreter.execute("saved(left=1, right=2)['value']"), 3)
    interpreter.tools.clear()
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("saved(left=1, right=2)")
    assert len(add.calls) == 1


def test_saved_reference_to_deleted_tool_cannot_call_the_host(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    interpreter.execute("saved = add")
    assert_value(interpreter.execute("saved(left=1, right=2)['value']"), 3)
    del interpreter.tools["add"]
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("saved(left=1, right=2)")
    assert len(add.calls) == 1


def test_removing_one_tool_keeps_the_others_callable(make_interpreter):
    add, other = add_tool(), add_tool()
    interpreter = make_interpreter(tools={"add": add, "other": other})
    del interpreter.tools["add"]
    assert_value(interpreter.execute("other(left=40, right=2)['value']"), 42)


def test_tool_exception_raises_code_execution_error_with_its_message(make_interpreter):
    def explode(reason):
        raise ValueError(f"tool-failure: {reason}")

    interpreter = make_interpreter(tools={"explode": RecordingTool(explode)})
    with pytest.raises(CodeExecutionError) as excinfo:
        interpreter.execute("explode(reason='boom')")
    assert "tool-failure: boom" in str(excinfo.value)


def test_session_still_works_after_a_tool_exception(make_interpreter):
    def explode():
        raise ValueError("tool-failure")

    interpreter = make_interpreter(tools={"explode": RecordingTool(explode), "add": add_tool()})
    interpreter.execute("kept = 1")
    with pytest.raises(CodeExecutionError):
        interpreter.execute("explode()")
    assert_value(interpreter.execute("add(left=kept, right=41)['value']"), 42)
