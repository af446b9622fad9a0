"""Errors: runtime errors -> CodeExecutionError (a CodeInterpreterError), invalid syntax -> SyntaxError."""

from __future__ import annotations

import pytest
from dspy.primitives.code_interpreter import CodeExecutionError, CodeInterpreterError

from ._support import assert_value, printed_text

RUNTIME_ERRORS = {
    "NameError": "undefined_conformance_name",
    "TypeError": "1 + 'a'",
    "ZeroDivisionError": "1 / 0",
    "ValueError": "int('not a number')",
    "KeyError": "{}['missing']",
    "IndexError": "[][0]",
    "AttributeError": "(1).no_such_attribute",
}

SYNTAX_ERRORS = {
    "bare-if": "if",
    "unclosed-def": "def broken(",
    "operator-soup": "+++",
    "unclosed-tuple": "x = (1,",
    "unterminated-string": "print('unterminated)",
}

NO_OP_CODE = {
    "empty": "",
    "spaces": "   ",
    "newlines": "\n\n",
    "mixed-whitespace": "\t \n  \n",
    "comment": "# just a comment",
    "two-comments": "# one\n# two\n",
    "indented-comment": "  # indented comment",
}


def test_zero_division_raises_code_execution_error(interpreter):
    with pytest.raises(CodeExecutionError):
        interpreter.execute("1 / 0")


def test_session_still_works_after_zero_division(interpreter):
    with pytest.raises(CodeExecutionError):
        interpreter.execute("1 / 0")
    assert_value(interpreter.execute("40 + 2"), 42)


@pytest.mark.parametrize("error_type", sorted(RUNTIME_ERRORS))
def test_runtime_error_raises_code_interpreter_error_naming_its_type(interpreter, error_type):
    with pytest.raises(CodeInterpreterError) as excinfo:
        interpreter.execute(RUNTIME_ERRORS[error_type])
    assert error_type in str(excinfo.value)


@pytest.mark.parametrize("error_type", sorted(RUNTIME_ERRORS))
def test_runtime_error_is_a_recoverable_code_execution_error(interpreter, error_type):
    with pytest.raises(CodeExecutionError):
        interpreter.execute(RUNTIME_ERRORS[error_type])
    assert_value(interpreter.execute("40 + 2"), 42)


def test_name_error_message_names_the_missing_name(interpreter):
    with pytest.raises(CodeInterpreterError) as excinfo:
        interpreter.execute("undefined_conformance_name")
    assert "undefined_conformance_name" in str(excinfo.value)


def test_raised_exception_message_reaches_the_caller(interpreter):
    with pytest.raises(CodeExecutionError) as excinfo:
        interpreter.execute("raise RuntimeError('conformance-detail')")
    assert "RuntimeError" in str(excinfo.value)
    assert "conformance-detail" in str(excinfo.value)


def test_exception_carrying_a_set_is_recoverable(interpreter):
    with pytest.raises(CodeExecutionError):
        interpreter.execute("raise ValueError({1, 2})")
    assert_value(interpreter.execute("40 + 2"), 42)


def test_exception_caught_inside_code_does_not_raise(interpreter):
    code = "try:\n    1 / 0\nexcept ZeroDivisionError:\n    print('caught')"
    assert printed_text(interpreter.execute(code)).strip() == "caught"


@pytest.mark.parametrize("case", sorted(SYNTAX_ERRORS))
def test_invalid_syntax_raises_syntax_error(interpreter, case):
    with pytest.raises(SyntaxError):
        interpreter.execute(SYNTAX_ERRORS[case])


def test_session_still_works_after_syntax_error(interpreter):
    with pytest.raises(SyntaxError):
        interpreter.execute("+++")
    assert_value(interpreter.execute("40 + 2"), 42)


def test_syntax_error_runs_no_statement_of_the_block(interpreter):
    with pytest.raises(SyntaxError):
        interpreter.execute("ran_before_syntax_error = 1\nif")
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("ran_before_syntax_error")


@pytest.mark.parametrize("case", sorted(NO_OP_CODE))
def test_code_without_statements_returns_none(interpreter, case):
    assert interpreter.execute(NO_OP_CODE[case]) is None


def test_session_still_works_after_empty_code(interpreter):
    interpreter.execute("")
    assert_value(interpreter.execute("40 + 2"), 42)
