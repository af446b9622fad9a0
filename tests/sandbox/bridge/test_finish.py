"""SUBMIT / FINAL / FINAL_VAR: defaults, field mapping, declared types, refusals, and the hard stop."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError, FinalAnswerResult, FinalOutput


def _submit_error(interp, code):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute(code)
    return info.value


# ---------------------------------------------------------------------------------------------------------
# without declared fields
# ---------------------------------------------------------------------------------------------------------


def test_submit_single_value_goes_to_output_field(interp):
    result = interp.execute("SUBMIT(42)")
    assert type(result) is FinalOutput
    assert result.output == {"output": 42}


def test_submit_keywords_become_the_fields(interp):
    assert interp.execute("SUBMIT(a=1, b=2)").output == {"a": 1, "b": 2}


def test_submit_value_and_keywords_combine(interp):
    assert interp.execute("SUBMIT(1, extra='x')").output == {"output": 1, "extra": "x"}


def test_submit_two_positional_values_is_type_error(interp):
    error = _submit_error(interp, "SUBMIT(1, 2)")
    assert error.error_type == "TypeError"
    assert "SUBMIT() takes one positional value when no output fields are declared, got 2" in str(error)


def test_submit_without_arguments_is_type_error(interp):
    error = _submit_error(interp, "SUBMIT()")
    assert error.error_type == "TypeError"
    assert "SUBMIT() needs a value" in str(error)


def test_final_default_field_is_answer(interp):
    result = interp.execute("FINAL('v')")
    assert type(result) is FinalAnswerResult
    assert result.output == {"answer": "v"}


def test_final_var_single_name_goes_to_answer(interp):
    assert interp.execute("x = [1, 2]\nFINAL_VAR('x')").output == {"answer": [1, 2]}


def test_final_var_extra_names_keep_their_names(interp):
    assert interp.execute("x = 3\ny = 4\nFINAL_VAR('x', 'y')").output == {"answer": 3, "y": 4}


def test_final_var_reads_injected_variable(interp):
    assert interp.execute("FINAL_VAR('doc')", variables={"doc": "text"}).output == {"answer": "text"}


def test_final_var_non_string_name_is_type_error(interp):
    error = _submit_error(interp, "FINAL_VAR(123)")
    assert error.error_type == "TypeError"
    assert "FINAL_VAR() takes the names of variables as strings" in str(error)


def test_final_var_missing_name_is_name_error_with_hint(interp):
    error = _submit_error(interp, "FINAL_VAR('missing')")
    assert error.error_type == "NameError"
    assert "FINAL_VAR(): name 'missing' is not defined" in str(error)


def test_final_answer_result_is_final_output_with_answer_alias(interp):
    result = interp.execute("FINAL(answer='a', score=3)")
    assert isinstance(result, FinalOutput)
    assert result.answer == result.output == {"answer": "a", "score": 3}
    assert result.answer is result.output


# ---------------------------------------------------------------------------------------------------------
# declared fields: mapping
# ---------------------------------------------------------------------------------------------------------


def test_submit_positional_values_map_to_fields_in_order(make_interp):
    interp = make_interp(output_fields=[{"name": "answer", "type": "str"}, {"name": "score", "type": "int"}])
    assert interp.execute("SUBMIT('yes', 9)").output == {"answer": "yes", "score": 9}


def test_final_var_with_fields_maps_names_in_order(make_interp):
    interp = make_interp(output_fields=[{"name": "p", "type": "int"}, {"name": "q", "type": "str"}])
    assert interp.execute("a = 7\nb = 's'\nFINAL_VAR('a', 'b')").output == {"p": 7, "q": "s"}


def test_final_var_keywords_map_fields_to_variables(make_interp):
    interp = make_interp(output_fields=[{"name": "p"}, {"name": "q"}])
    assert interp.execute("a = 1\nb = 2\nFINAL_VAR(q='a', p='b')").output == {"q": 1, "p": 2}


def test_unknown_field_is_type_error_listing_fields(make_interp):
    interp = make_interp(output_fields=[{"name": "p", "type": "int"}, {"name": "q", "type": "str"}])
    error = _submit_error(interp, "SUBMIT(1, 's', zz=3)")
    assert error.error_type == "TypeError"
    assert "SUBMIT() got an unexpected output field 'zz'; the output fields are: p (int), q (str)" in str(error)


def test_duplicate_field_is_type_error(make_interp):
    interp = make_interp(output_fields=[{"name": "p"}, {"name": "q"}])
    error = _submit_error(interp, "SUBMIT(1, p=3, q=4)")
    assert error.error_type == "TypeError"
    assert "SUBMIT() got two values for output field 'p'" in str(error)


def test_missing_fields_are_listed_with_call_hint(make_interp):
    interp = make_interp(output_fields=[{"name": "p", "type": "int"}, {"name": "q", "type": "str"}])
    error = _submit_error(interp, "SUBMIT()")
    assert error.error_type == "TypeError"
    assert "SUBMIT() missing 2 required positional arguments: 'p' and 'q'; call SUBMIT(p=..., q=...)" in str(error)


def test_single_missing_field_is_named(make_interp):
    interp = make_interp(output_fields=[{"name": "p"}, {"name": "q"}])
    error = _submit_error(interp, "SUBMIT(1)")
    assert "SUBMIT() missing 1 required positional argument: 'q'" in str(error)


def test_too_many_positional_values_for_fields_is_type_error(make_interp):
    interp = make_interp(output_fields=[{"name": "only"}])
    error = _submit_error(interp, "SUBMIT(1, 2)")
    assert error.error_type == "TypeError"
    assert "got 2 positional values but there are 1 output fields" in str(error)


# ---------------------------------------------------------------------------------------------------------
# declared fields: types
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "got"),
    [("True", "bool True"), ("'1'", "str '1'"), ("1.0", "float 1.0")],
)
def test_int_field_rejects_bool_str_and_float(make_interp, value, got):
    interp = make_interp(output_fields=[{"name": "n", "type": "int"}])
    error = _submit_error(interp, f"SUBMIT({value})")
    assert error.error_type == "TypeError"
    assert f"SUBMIT() output field 'n' must be int, got {got}" in str(error)


def test_int_field_accepts_int(make_interp):
    interp = make_interp(output_fields=[{"name": "n", "type": "int"}])
    result = interp.execute("SUBMIT(5)").output
    assert result == {"n": 5}
    assert type(result["n"]) is int


def test_float_field_accepts_int(make_interp):
    interp = make_interp(output_fields=[{"name": "f", "type": "float"}])
    assert interp.execute("SUBMIT(3)").output == {"f": 3}


def test_float_field_rejects_bool(make_interp):
    interp = make_interp(output_fields=[{"name": "f", "type": "float"}])
    error = _submit_error(interp, "SUBMIT(False)")
    assert "output field 'f' must be float, got bool False" in str(error)


def test_str_field_rejects_int(make_interp):
    interp = make_interp(output_fields=[{"name": "s", "type": "str"}])
    error = _submit_error(interp, "SUBMIT(4)")
    assert error.error_type == "TypeError"
    assert "SUBMIT() output field 's' must be str, got int 4" in str(error)


def test_bool_field_rejects_int(make_interp):
    interp = make_interp(output_fields=[{"name": "ok", "type": "bool"}])
    error = _submit_error(interp, "SUBMIT(1)")
    assert "output field 'ok' must be bool, got int 1" in str(error)


def test_final_var_type_check_names_field(make_interp):
    interp = make_interp(output_fields=[{"name": "p", "type": "int"}, {"name": "q", "type": "str"}])
    error = _submit_error(interp, "x = 3\ny = 4\nFINAL_VAR('x', 'y')")
    assert "FINAL_VAR() output field 'q' must be str, got int 4" in str(error)


def test_undeclared_type_accepts_anything(make_interp):
    interp = make_interp(output_fields=[{"name": "items", "type": "list[str]"}])
    assert interp.execute("SUBMIT(('a', 1))").output == {"items": ("a", 1)}


def test_rejected_submit_can_be_caught_and_retried(interp):
    code = "try:\n    SUBMIT(1, 2)\nexcept TypeError:\n    pass\nSUBMIT(3)"
    assert interp.execute(code).output == {"output": 3}


# ---------------------------------------------------------------------------------------------------------
# the hard stop
# ---------------------------------------------------------------------------------------------------------


def test_nothing_after_submit_runs_in_except_base_exception(interp):
    interp.execute("x = 0\ntry:\n    SUBMIT(1)\nexcept BaseException:\n    x = 1\nx = 2")
    assert interp.execute("x") == 0


def test_nothing_after_submit_runs_in_finally(interp):
    result = interp.execute("x = 0\ntry:\n    SUBMIT(1)\nfinally:\n    x = 1")
    assert result.output == {"output": 1}
    assert interp.execute("x") == 0


def test_nothing_after_submit_runs_in_loop_around_try_except(interp):
    code = "x = 0\nwhile True:\n    try:\n        SUBMIT(1)\n    except BaseException:\n        x += 1\n"
    assert interp.execute(code).output == {"output": 1}
    assert interp.execute("x") == 0


def test_tool_in_finally_after_submit_is_not_called(make_interp):
    calls = []
    interp = make_interp(tools={"record": lambda: calls.append(1)})
    interp.execute("try:\n    SUBMIT(1)\nfinally:\n    record()")
    assert calls == []


def test_nothing_after_final_runs_in_except_base_exception(interp):
    interp.execute("x = 0\ntry:\n    FINAL(1)\nexcept BaseException:\n    x = 1")
    assert interp.execute("x") == 0


def test_output_printed_before_submit_is_not_leaked_to_next_execute(interp):
    interp.execute("print('before')\nSUBMIT(1)")
    assert interp.execute("print('next')") == "next\n"


def test_state_before_submit_is_kept(interp):
    interp.execute("kept = 'yes'\nSUBMIT(1)")
    assert interp.execute("kept") == "yes"


def test_session_runs_normally_after_submit(interp):
    interp.execute("SUBMIT(1)")
    code = (
        "try:\n    raise ValueError('v')\nexcept ValueError:\n    r = 'caught'\nn = 0\nfor i in range(100_000):\n    n += 1\nr, n"
    )
    assert interp.execute(code) == ("caught", 100_000)


def test_finally_runs_normally_after_submit(interp):
    interp.execute("SUBMIT(1)")
    assert interp.execute("try:\n    x = 1\nfinally:\n    x = 2\nx") == 2


def test_submit_of_non_data_value_is_code_execution_error(interp):
    error = _submit_error(interp, "class C:\n    pass\nSUBMIT(C())")
    assert error.error_type == "TypeError"
    assert "'C'" in str(error)
    assert "cannot leave the sandbox" in str(error)


def test_session_works_after_unconvertible_submit(interp):
    with pytest.raises(CodeExecutionError):
        interp.execute("class C:\n    pass\nSUBMIT(C())")
    assert interp.execute("SUBMIT(2)").output == {"output": 2}


def test_submit_inside_function_stops_caller(interp):
    code = "def finish():\n    SUBMIT('done')\n    return 'returned'\nr = finish()\nafter = True"
    assert interp.execute(code).output == {"output": "done"}
    assert interp.execute("'after' in globals(), 'r' in globals()") == (False, False)


def test_nothing_after_submit_runs_when_context_manager_suppresses_it(interp):
    code = "import contextlib\nx = 0\nwith contextlib.suppress(BaseException):\n    SUBMIT(1)\nx = 1"
    assert interp.execute(code).output == {"output": 1}
    assert interp.execute("x") == 0


def test_nothing_after_submit_runs_when_exit_returns_true(interp):
    code = (
        "class Swallow:\n"
        "    def __enter__(self):\n"
        "        return self\n"
        "    def __exit__(self, *exc):\n"
        "        return True\n"
        "x = 0\n"
        "with Swallow():\n"
        "    SUBMIT(2)\n"
        "x = 2"
    )
    assert interp.execute(code).output == {"output": 2}
    assert interp.execute("x") == 0


def test_first_accepted_submit_wins(interp):
    code = "try:\n    SUBMIT(1)\nexcept BaseException:\n    SUBMIT(2)\nSUBMIT(3)"
    assert interp.execute(code).output == {"output": 1}
