"""Finish calls, seed-design family: FINAL(...) / FINAL_VAR(...) -> FinalAnswerResult with an ``.answer`` dict.

Released dspy has no FINAL family; peers that only implement SUBMIT deselect with ``-m "not final_family"``.
"""

from __future__ import annotations

import pytest
from dspy.primitives.code_interpreter import CodeInterpreterError

from ._support import TWO_FIELDS, add_tool, assert_final_answer, assert_value

pytestmark = pytest.mark.final_family


def test_module_exports_final_answer_result(final_answer_result_cls):
    assert isinstance(final_answer_result_cls, type), "interpreter module must export a FinalAnswerResult class"


def test_final_single_value_uses_default_answer_field(interpreter, final_answer_result_cls):
    assert_final_answer(interpreter.execute("FINAL('v')"), final_answer_result_cls, {"answer": "v"})


def test_final_keyword_arguments(make_interpreter, final_answer_result_cls):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    result = interpreter.execute("FINAL(answer='the answer', score=95)")
    assert_final_answer(result, final_answer_result_cls, {"answer": "the answer", "score": 95})


def test_final_list_value(interpreter, final_answer_result_cls):
    assert_final_answer(interpreter.execute("FINAL([1, 2, 3])"), final_answer_result_cls, {"answer": [1, 2, 3]})


def test_final_dict_value(interpreter, final_answer_result_cls):
    result = interpreter.execute("FINAL({'k': 'v'})")
    assert_final_answer(result, final_answer_result_cls, {"answer": {"k": "v"}})


def test_final_positional_arguments_map_to_output_fields_in_order(make_interpreter, final_answer_result_cls):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    result = interpreter.execute("FINAL('the answer', 95)")
    assert_final_answer(result, final_answer_result_cls, {"answer": "the answer", "score": 95})


def test_final_output_field_types_are_respected(make_interpreter, final_answer_result_cls):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    result = interpreter.execute("FINAL(answer='yes', score=95)")
    assert_final_answer(result, final_answer_result_cls, {"answer": "yes", "score": 95})
    assert type(result.answer["answer"]) is str
    assert type(result.answer["score"]) is int


def test_final_var_returns_current_value_of_variable(interpreter, final_answer_result_cls):
    interpreter.execute("x = 'stale'")
    interpreter.execute("x = 'current'")
    assert_final_answer(interpreter.execute("FINAL_VAR('x')"), final_answer_result_cls, {"answer": "current"})


def test_final_var_names_map_to_output_fields_in_order(make_interpreter, final_answer_result_cls):
    interpreter = make_interpreter(output_fields=TWO_FIELDS)
    interpreter.execute("result = 'computed answer'\nscore = 42")
    result = interpreter.execute("FINAL_VAR('result', 'score')")
    assert_final_answer(result, final_answer_result_cls, {"answer": "computed answer", "score": 42})


def test_final_var_reads_injected_variable(interpreter, final_answer_result_cls):
    result = interpreter.execute("FINAL_VAR('context')", variables={"context": "injected"})
    assert_final_answer(result, final_answer_result_cls, {"answer": "injected"})


def test_final_var_undefined_name_raises_code_interpreter_error(interpreter):
    with pytest.raises(CodeInterpreterError) as excinfo:
        interpreter.execute("FINAL_VAR('undefined_conformance_var')")
    assert "undefined_conformance_var" in str(excinfo.value)


def test_session_still_works_after_final_var_of_undefined_name(interpreter, final_answer_result_cls):
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("FINAL_VAR('undefined_conformance_var')")
    assert_final_answer(interpreter.execute("FINAL('v')"), final_answer_result_cls, {"answer": "v"})


def test_assignment_after_final_does_not_run(interpreter, final_answer_result_cls):
    interpreter.execute("after_final = False")
    result = interpreter.execute("FINAL('v')\nafter_final = True")
    assert_final_answer(result, final_answer_result_cls, {"answer": "v"})
    assert_value(interpreter.execute("after_final"), False)


def test_assignment_after_final_var_does_not_run(interpreter, final_answer_result_cls):
    interpreter.execute("x = 'v'\nafter_final_var = False")
    result = interpreter.execute("FINAL_VAR('x')\nafter_final_var = True")
    assert_final_answer(result, final_answer_result_cls, {"answer": "v"})
    assert_value(interpreter.execute("after_final_var"), False)


def test_tool_call_after_final_does_not_reach_the_host(make_interpreter, final_answer_result_cls):
    add = add_tool()
    interpreter = make_interpreter(tools={"add": add})
    result = interpreter.execute("FINAL('v')\nadd(left=1, right=2)")
    assert_final_answer(result, final_answer_result_cls, {"answer": "v"})
    assert add.calls == []
