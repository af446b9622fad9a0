"""What a session's ``RunOutcome`` becomes, in one place: the value ``execute()`` returns (printed text, a value, a
finish call's result) or the exception it raises, what a command of ``interp.files`` returns or raises, and how an
outcome counts in the interpreter's ``stats()``."""

from __future__ import annotations

import builtins
from typing import Any

from . import _native
from ._errors import CodeExecutionError, CodeInterpreterError, FinalAnswerResult, FinalOutput
from ._native import OutcomeKind, StopReason

# Errors of the session's filesystem that the host API raises as themselves.
_PASSED_ERRORS = frozenset({
    "OSError", "FileNotFoundError", "FileExistsError", "IsADirectoryError", "NotADirectoryError",
    "PermissionError", "ValueError", "TypeError",
})

# The subclasses of SyntaxError a cell's code can fail to compile with, raised as themselves (as CPython's
# exec raises them); any other name the session sends is a plain SyntaxError.
_SYNTAX_ERRORS: dict[str, type[SyntaxError]] = {"IndentationError": IndentationError, "TabError": TabError}


def run_result(outcome: _native.RunOutcome) -> Any:
    """What ``execute()`` returns for ``outcome``, or the exception it raises."""
    kind = outcome.kind
    if kind is OutcomeKind.Value:
        return outcome.value
    if kind is OutcomeKind.Submit:
        return FinalOutput(outcome.value)
    if kind is OutcomeKind.Final:
        return FinalAnswerResult(outcome.value)
    if kind is OutcomeKind.Syntax:
        error_class = _SYNTAX_ERRORS.get(outcome.error_type, SyntaxError)
        raise error_class(outcome.message, ("<sandbox>", outcome.lineno, outcome.offset, outcome.text))
    if kind is OutcomeKind.Error:
        error_type, message, traceback, output = outcome.error_type, outcome.message, outcome.traceback, outcome.output
        text = f"{error_type}: {message}" if message else error_type
        if traceback:
            text += f"\n\n{traceback}"
        if output:
            text += f"\n\nOutput printed before the error:\n{output}"
        raise CodeExecutionError(text, error_type=error_type, traceback=traceback, output=output)
    raise CodeInterpreterError(outcome.message)


def command_result(outcome: _native.RunOutcome) -> Any:
    """What a command of ``interp.files`` returns for ``outcome``: its value; an error of the session's filesystem
    raised as that builtin, any other as the interpreter's error."""
    kind = outcome.kind
    if kind is OutcomeKind.Value:
        return outcome.value
    if kind is OutcomeKind.Error:
        exception = getattr(builtins, outcome.error_type, None) if outcome.error_type in _PASSED_ERRORS else None
        if exception is not None:
            raise exception(outcome.message)
        raise CodeInterpreterError(f"{outcome.error_type}: {outcome.message}")
    raise CodeInterpreterError(outcome.message or "the session's files could not be reached")


def count_outcome(stats: Any, outcome: _native.RunOutcome) -> None:
    """``outcome`` in the interpreter's counters (``stats()``)."""
    stats.executes += 1
    stats.tool_results_too_large += outcome.results_too_large
    kind = outcome.kind
    if kind is OutcomeKind.Value:
        value = outcome.value
        stats.output_chars += len(value) if type(value) is str else outcome.value_size
    elif kind is OutcomeKind.Syntax:
        stats.errors += 1
    elif kind is OutcomeKind.Error:
        stats.errors += 1
        stats.output_chars += len(outcome.output)
        if outcome.stop is StopReason.Memory or outcome.error_type == "MemoryError":
            stats.memory_errors += 1
        elif outcome.stop is StopReason.Timeout:
            stats.timeouts += 1
        if outcome.rolled_back:
            stats.rollbacks += 1
