"""Finish calls, released-dspy family: SUBMIT(...) -> dspy FinalOutput, typed output_fields."""

from __future__ import annotations

import pytest
from dspy.primitives.code_interpreter import CodeExecutionError, FinalOutput

from ._support import TWO_FIELDS, add_tool, assert_final_output, assert_value, printed_text


def test_submit_single_value_returns_final_output_under_output_key(interpreter):
    result = interpreter.execute("SUBMIT(42)")
    assert_final_output(result, {"output": 42})


def test_submit_result_equals_dspy_final_output(interpreter):
    assert interpreter.execute("SUBMIT(42)") == FinalOutput({"output": 42})


def test_submit_single_string_value(interpreter):
    assert_final_output(interpreter.execute("SUBMIT('done')"), {"output": "done"})


def test_submit_preserves_nested_value(interpreter):
    value = {"a": [1, 2.5, None, True, "ü"], "b": {}}
    assert_final_output(interpreter.execute(f"SUBMIT({value!r})"), {"output": value})


def test_submit_typed_fields_by_keyword(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    assert_final_output(interpreter.execute("SUBMIT(answer='yes', score=42)"), {"answer": "yes", "score": 42})


def test_submit_typed_fields_by_position(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    assert_final_output(interpreter.execute("SUBMIT('yes', 42)"), {"answer": "yes", "score": 42})


def test_submit_missing_field_raises_code_execution_error(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    with pytest.raises(CodeExecutionError) as excinfo:
        interpreter.execute("SUBMIT('missing')")
    assert "NameError" not in str(excinfo.value), "SUBMIT itself must exist; the error must be about its fields"


def test_submit_unknown_field_raises_code_execution_error(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    with pytest.raises(CodeExecutionError) as excinfo:
        interpreter.execute("SUBMIT(answer='yes', score=42, extra=1)")
    assert "NameError" not in str(excinfo.value), "SUBMIT itself must exist; the error must be about its fields"


def test_session_still_works_after_rejected_submit(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    interpreter.execute("kept = 42")
    with pytest.raises(CodeExecutionError):
        interpreter.execute("SUBMIT('missing')")
    assert_final_output(interpreter.execute("SUBMIT(answer='yes', score=kept)"), {"answer": "yes", "score": 42})


def test_output_fields_set_after_construction_are_used(interpreter):
    interpreter.output_fields = TWO_FIELDS
    assert_final_output(interpreter.execute("SUBMIT(answer='yes', score=42)"), {"answer": "yes", "score": 42})


def test_output_fields_set_after_start_are_used(interpreter):
    interpreter.start()
    interpreter.execute("x = 1")
    interpreter.output_fields = TWO_FIELDS
    assert_final_output(interpreter.execute("SUBMIT(answer='yes', score=42)"), {"answer": "yes", "score": 42})


def test_output_fields_can_be_set_to_none(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    interpreter.output_fields = None
    assert interpreter.output_fields is None


def test_submit_uses_output_key_after_output_fields_reset_to_none(make_interpreter):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    interpreter.execute("x = 1")
    interpreter.output_fields = None
    assert_final_output(interpreter.execute("SUBMIT(42)"), {"output": 42})


def test_assignment_after_submit_does_not_run(interpreter):
    interpreter.execute("after_submit = False")
    assert_final_output(interpreter.execute("SUBMIT(1)\nafter_submit = True"), {"output": 1})
    assert_value(interpreter.execute("after_submit"), False)


def test_print_after_submit_is_not_emitted_now_or_later(interpreter):
    assert_final_output(interpreter.execute("SUBMIT(1)\nprint('after-submit')"), {"output": 1})
    assert printed_text(interpreter.execute("print('next-call')")).strip() == "next-call"


def test_tool_call_after_submit_does_not_reach_the_host(make_interpreter):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    assert_final_output(interpreter.execute("SUBMIT(1)\nadd(left=1, right=2)"), {"output": 1})
    assert add.calls == []


def test_submit_inside_a_loop_stops_the_loop(interpreter):
    code = "seen = []\nfor i in range(5):\n    seen.append(i)\n    if i == 2:\n        SUBMIT(i)"
    assert_final_output(interpreter.execute(code), {"output": 2})
    assert_value(interpreter.execute("len(seen)"), 3)


def test_submit_inside_a_function_finishes_the_execution(interpreter):
    interpreter.execute("def finish(v):\n    SUBMIT(v)\n    return 'returned'")
    assert_final_output(interpreter.execute("finish(7)\nprint('after')"), {"output": 7})


def test_submit_with_value_from_injected_variable(interpreter):
    result = interpreter.execute("SUBMIT(len(document))", variables={"document": "abcdef"})
    assert_final_output(result, {"output": 6})
