"""How failures reach the host: CodeExecutionError's message and attributes, tracebacks, SyntaxError."""

from __future__ import annotations

import re

import dspy.primitives.code_interpreter as dspy_ci
import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, FinalAnswerResult, FinalOutput, RustInterpreter

# ---------------------------------------------------------------------------------------------------------
# CodeExecutionError
# ---------------------------------------------------------------------------------------------------------


def test_message_starts_with_type_name_and_message(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("raise ValueError('bad thing')")
    assert str(info.value).startswith("ValueError: bad thing\n")


def test_message_without_text_is_just_the_type_name(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("raise ValueError")
    assert str(info.value).splitlines()[0] == "ValueError"


def test_error_type_attribute_is_the_exception_class_name(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("{}['missing']")
    assert info.value.error_type == "KeyError"


def test_traceback_attribute_starts_with_traceback_header(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("1 / 0")
    assert info.value.traceback.startswith("Traceback (most recent call last):\n")
    assert info.value.traceback in str(info.value)


def test_traceback_names_cell_line_function_and_source_text(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("def f(a):\n    return 1 / a\nf(0)")
    assert info.value.traceback == (
        "Traceback (most recent call last):\n"
        '  File "<cell 1>", line 3, in <module>\n'
        "    f(0)\n"
        "    ~^^^\n"
        '  File "<cell 1>", line 2, in f\n'
        "    return 1 / a\n"
        "           ~~^~~"
    )


def test_traceback_points_into_earlier_cell_for_function_defined_there(interp):
    interp.execute("x = 1\n\ndef f(a):\n    return 1 / a")
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("y = 2\nf(0)")
    assert info.value.traceback == (
        "Traceback (most recent call last):\n"
        '  File "<cell 2>", line 2, in <module>\n'
        "    f(0)\n"
        "    ~^^^\n"
        '  File "<cell 1>", line 4, in f\n'
        "    return 1 / a\n"
        "           ~~^~~"
    )


def test_traceback_cells_are_numbered_per_execute(interp):
    interp.execute("a = 1")
    interp.execute("b = 2")
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("raise KeyError('k')")
    assert re.search(r'File "<cell 3>", line 1, in <module>\n    raise KeyError\(\'k\'\)', info.value.traceback)


def test_traceback_omits_tool_stand_in_frames(make_interp):
    def fails():
        raise ValueError("tool broke")

    interp = make_interp(tools={"fails": fails})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("fails()")
    assert "<tools>" not in info.value.traceback
    assert info.value.traceback.endswith('File "<cell 1>", line 1, in <module>\n    fails()\n    ~~~~~^^')


def test_custom_exception_class_name_is_error_type(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("class MyErr(Exception):\n    pass\nraise MyErr('boom')")
    assert info.value.error_type == "MyErr"
    assert str(info.value).startswith("MyErr: boom")


def test_custom_exception_defined_in_earlier_cell_keeps_its_name(interp):
    interp.execute("class DomainError(ValueError):\n    pass")
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("raise DomainError('out of range')")
    assert info.value.error_type == "DomainError"


@pytest.mark.parametrize("code", ["raise SystemExit(3)", "import sys\nsys.exit(0)"])
def test_system_exit_in_sandbox_is_a_code_execution_error(interp, code):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute(code)
    assert info.value.error_type == "SystemExit"
    assert interp.execute("1 + 1") == 2


def test_keyboard_interrupt_in_sandbox_is_a_code_execution_error(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("raise KeyboardInterrupt")
    assert info.value.error_type == "KeyboardInterrupt"


def test_runaway_recursion_is_a_recursion_error_and_session_survives(interp):
    interp.execute("x = 'kept'")
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("def r():\n    return r()\nr()")
    assert info.value.error_type == "RecursionError"
    assert interp.execute("x") == "kept"


def test_runaway_recursion_traceback_is_bounded(interp):
    # An LLM reads this message; thousands of identical frames would flood its context (CPython collapses them).
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("def r():\n    return r()\nr()")
    assert len(str(info.value)) < 10_000


# ---------------------------------------------------------------------------------------------------------
# SyntaxError
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "msg", "lineno", "offset", "text"),
    [
        ("x = (1 +\n", "'(' was never closed", 1, 5, "x = (1 +"),
        ("def broken(", "'(' was never closed", 1, 11, "def broken("),
        ("+++", "invalid syntax", 1, 4, "+++"),
        ("a = 1\nb = = 2", "invalid syntax", 2, 5, "b = = 2"),
    ],
)
def test_syntax_error_has_msg_lineno_offset_and_text(interp, code, msg, lineno, offset, text):
    with pytest.raises(SyntaxError) as info:
        interp.execute(code)
    error = info.value
    assert (error.msg, error.lineno, error.offset, error.text) == (msg, lineno, offset, text)


@pytest.mark.parametrize(
    ("code", "kind", "msg", "lineno", "offset"),
    [
        ("def f():\nreturn 1", IndentationError, "expected an indented block after function definition on line 1", 2, 1),
        ("x = 1\n    y = 2", IndentationError, "unexpected indent", 2, 4),
        ("if True:\n\tx = 1\n        y = 2", TabError, "inconsistent use of tabs and spaces in indentation", 3, None),
        ("x = 3 \u2013 2", SyntaxError, "invalid character '\u2013' (U+2013)", 1, 7),
        ("print(\u201chello\u201d)", SyntaxError, "invalid character '\u201c' (U+201C)", 1, 7),
        ("if x \u2264 3:\n    pass", SyntaxError, "invalid character '\u2264' (U+2264)", 1, 6),
        ("caf\u00e9 = 1 +", SyntaxError, "invalid syntax", 1, 11),
    ],
)
def test_a_cells_syntax_error_is_cpythons_class_and_words(interp, code, kind, msg, lineno, offset):
    """IndentationError and TabError reach the caller as themselves (both are SyntaxErrors, so dspy's loops catch
    them as before); a character no token can hold is named, as CPython's tokenizer names it (models write
    typographic dashes, quotes and symbols), where RustPython's parser said only "invalid syntax"."""
    with pytest.raises(SyntaxError) as info:
        interp.execute(code)
    error = info.value
    assert type(error) is kind, type(error)
    assert (error.msg, error.lineno) == (msg, lineno)
    if offset is not None:
        assert error.offset == offset
    assert interp.execute("1 + 1") == 2


def test_syntax_error_is_not_a_code_execution_error(interp):
    with pytest.raises(SyntaxError) as info:
        interp.execute("+++")
    assert not isinstance(info.value, CodeExecutionError)


def test_syntax_error_leaves_state_intact_and_runs_nothing(interp):
    interp.execute("x = 1")
    with pytest.raises(SyntaxError):
        interp.execute("x = 2\nprint('ran')\n+++")
    assert interp.execute("x") == 1


def test_syntax_error_does_not_leak_output_into_next_execute(interp):
    with pytest.raises(SyntaxError):
        interp.execute("print('never')\ndef broken(")
    assert interp.execute("print('next')") == "next\n"


# ---------------------------------------------------------------------------------------------------------
# the error classes are dspy's
# ---------------------------------------------------------------------------------------------------------


def test_code_execution_error_subclasses_dspy_code_execution_error():
    assert issubclass(CodeExecutionError, dspy_ci.CodeExecutionError)


def test_code_interpreter_error_is_dspy_class():
    assert CodeInterpreterError is dspy_ci.CodeInterpreterError


def test_final_output_is_dspy_class_and_final_answer_result_subclasses_it():
    assert FinalOutput is dspy_ci.FinalOutput
    assert issubclass(FinalAnswerResult, dspy_ci.FinalOutput)


def test_raised_error_is_caught_by_dspy_except_clause(interp):
    with pytest.raises(dspy_ci.CodeExecutionError):
        interp.execute("1 / 0")


# ---------------------------------------------------------------------------------------------------------
# after shutdown
# ---------------------------------------------------------------------------------------------------------


def test_execute_after_shutdown_raises_interpreter_error_not_execution_error():
    interp = RustInterpreter()
    interp.execute("x = 1")
    interp.shutdown()
    with pytest.raises(CodeInterpreterError) as info:
        interp.execute("x")
    assert not isinstance(info.value, CodeExecutionError)
    assert "shut down" in str(info.value)


def test_execute_after_shutdown_without_start_raises_interpreter_error():
    interp = RustInterpreter()
    interp.shutdown()
    with pytest.raises(CodeInterpreterError) as info:
        interp.execute("1")
    assert not isinstance(info.value, CodeExecutionError)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("'a'.replace(1, 2)", "TypeError: replace() argument must be str, not int"),
        # CPython's own words for split's separator name no method (3.10-3.14).
        ("'a,b'.split(1)", "TypeError: must be str or None, not int"),
        ("'abc'.find(1)", "TypeError: find() argument must be str, not int"),
    ],
)
def test_a_native_methods_argument_of_the_wrong_type_names_the_method(interp, code, message):
    # RustPython says "Expected type 'str' but 'int' found."; CPython also numbers the argument.
    with pytest.raises(CodeExecutionError) as info:
        interp.execute(code)
    assert str(info.value).splitlines()[0] == message


def test_a_type_error_raised_by_code_a_builtin_ran_is_not_put_on_the_builtin(interp):
    # The key function's error passes through sorted(): it is not about sorted()'s own arguments.
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("sorted([1], key=lambda x: str(b'', x))")
    assert "sorted()" not in str(info.value)
