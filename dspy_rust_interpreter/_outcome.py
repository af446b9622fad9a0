"""What a session's ``RunOutcome`` becomes, in one place: the value ``execute()`` returns (printed text, a value, a
finish call's result) or the exception it raises, what a command of ``interp.files`` returns or raises, and how an
outcome counts in the interpreter's ``stats()``."""

from __future__ import annotations

import builtins
from typing import Any

from ._errors import CodeExecutionError, CodeInterpreterError, FinalAnswerResult, FinalOutput
from ._native import RunOutcome, StopReason

# Errors of the session's filesystem that the host API raises as themselves.
_PASSED_ERRORS = frozenset(
    {
        "OSError",
        "FileNotFoundError",
        "FileExistsError",
        "IsADirectoryError",
        "NotADirectoryError",
        "PermissionError",
        "ValueError",
        "TypeError",
    }
)

# The subclasses of SyntaxError a cell's code can fail to compile with, raised as themselves (as CPython's
# exec raises them); any other name the session sends is a plain SyntaxError.
_SYNTAX_ERRORS: dict[str, type[SyntaxError]] = {"IndentationError": IndentationError, "TabError": TabError}


def run_result(outcome: RunOutcome) -> Any:
    """What ``execute()`` returns for ``outcome``, or the exception it raises."""
    match outcome:
        case RunOutcome.Value(value=value):
            return value
        case RunOutcome.Submit(fields=fields):
            return FinalOutput(fields)
        case RunOutcome.Final(fields=fields):
            return FinalAnswerResult(fields)
        case RunOutcome.Syntax(error_type=error_type, message=message, lineno=lineno, offset=offset, text=text):
            raise _SYNTAX_ERRORS.get(error_type, SyntaxError)(message, ("<sandbox>", lineno, offset, text))
        case RunOutcome.Error(error_type=error_type, message=message, traceback=traceback, output=output):
            text = f"{error_type}: {message}" if message else error_type
            if traceback:
                text += f"\n\n{traceback}"
            if output:
                text += f"\n\nOutput printed before the error:\n{output}"
            raise CodeExecutionError(text, error_type=error_type, traceback=traceback, output=output)
        case RunOutcome.Dead(message=message):
            raise CodeInterpreterError(message)
    raise CodeInterpreterError(f"the session ended a run in a way this version does not know: {outcome!r}")


def command_result(outcome: RunOutcome) -> Any:
    """What a command of ``interp.files`` returns for ``outcome``: its value; an error of the session's filesystem
    raised as that builtin, any other as the interpreter's error."""
    match outcome:
        case RunOutcome.Value(value=value):
            return value
        case RunOutcome.Error(error_type=error_type, message=message):
            exception = getattr(builtins, error_type, None) if error_type in _PASSED_ERRORS else None
            if exception is not None:
                raise exception(message)
            raise CodeInterpreterError(f"{error_type}: {message}")
        case RunOutcome.Dead(message=message) if message:
            raise CodeInterpreterError(message)
    raise CodeInterpreterError("the session's files could not be reached")


def count_outcome(stats: Any, outcome: RunOutcome) -> None:
    """``outcome`` in the interpreter's counters (``stats()``)."""
    stats.executes += 1
    match outcome:
        case RunOutcome.Value(value=value, value_size=value_size, results_too_large=refused):
            stats.output_chars += len(value) if type(value) is str else value_size
            stats.tool_results_too_large += refused
        case RunOutcome.Submit(results_too_large=refused) | RunOutcome.Final(results_too_large=refused):
            stats.tool_results_too_large += refused
        case RunOutcome.Syntax():
            stats.errors += 1
        case RunOutcome.Error(
            error_type=error_type, output=output, stop=stop, rolled_back=rolled_back, results_too_large=refused
        ):
            stats.errors += 1
            stats.output_chars += len(output)
            stats.tool_results_too_large += refused
            if stop is StopReason.Memory or error_type == "MemoryError":
                stats.memory_errors += 1
            elif stop is StopReason.Timeout:
                stats.timeouts += 1
            if rolled_back:
                stats.rollbacks += 1
