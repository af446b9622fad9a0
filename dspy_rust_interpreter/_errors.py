"""The protocol's result and error types.

When dspy is installed these are dspy's own classes (or subclasses of them), so the ``except`` clauses in
``dspy.RLM`` and friends catch what we raise. Without dspy the package still works, with classes of the same
names defined here.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CodeExecutionError",
    "CodeInterpreterError",
    "FinalAnswerResult",
    "FinalOutput",
    "InvalidNameError",
    "InvalidValueError",
    "DSPY_AVAILABLE",
]

try:
    from dspy.primitives.code_interpreter import (
        CodeExecutionError as _ExecutionErrorBase,
    )
    from dspy.primitives.code_interpreter import (
        CodeInterpreterError,
        FinalOutput,
    )

    DSPY_AVAILABLE = True
except ImportError:  # dspy is optional
    DSPY_AVAILABLE = False

    class CodeInterpreterError(RuntimeError):  # type: ignore[no-redef]
        """The interpreter session cannot go on (it was shut down, or had to be abandoned)."""

    _ExecutionErrorBase = CodeInterpreterError  # type: ignore[misc]

    class FinalOutput:  # type: ignore[no-redef]
        """Returned by ``execute()`` when sandbox code called ``SUBMIT(...)``."""

        def __init__(self, output: Any) -> None:
            self.output = output

        def __repr__(self) -> str:
            return f"FinalOutput({self.output!r})"

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, FinalOutput):
                return NotImplemented
            return self.output == other.output

        __hash__ = None  # type: ignore[assignment]


class CodeExecutionError(_ExecutionErrorBase):  # type: ignore[misc,valid-type]
    """Recoverable error raised by sandboxed code (or a tool it called); the session is intact.

    ``error_type`` is the sandbox exception's class name, ``traceback`` its traceback text with line numbers
    within the submitted code, ``output`` what the code printed before it failed.
    """

    def __init__(self, message: str, *, error_type: str = "", traceback: str = "", output: str = "") -> None:
        super().__init__(message)
        self.error_type = error_type
        self.traceback = traceback
        self.output = output


class InvalidNameError(CodeInterpreterError, ValueError):  # type: ignore[misc,valid-type]
    """A name sandbox code would see that cannot be used: a variable, tool or output field name, or two mounted
    files of one name. A ValueError, and dspy's ``CodeInterpreterError`` (what dspy's own interpreter raises
    for it), so either ``except`` catches it."""


class InvalidValueError(CodeInterpreterError, TypeError):  # type: ignore[misc,valid-type]
    """A value given to ``execute()`` that cannot be used: code that is not a str, variables that are not a
    dict, or a variable of a kind that cannot enter the sandbox. A TypeError, and dspy's
    ``CodeInterpreterError`` (what both of dspy's interpreters raise for it), so either ``except`` catches it;
    the session is unchanged."""


class FinalAnswerResult(FinalOutput):  # type: ignore[misc,valid-type]
    """Returned by ``execute()`` when sandbox code called ``FINAL(...)`` or ``FINAL_VAR(...)``.

    ``answer`` is the dict of output fields (the seed protocol's name); it is also ``output``, so code that
    expects dspy's ``FinalOutput`` (such as ``dspy.RLM``) accepts it unchanged.
    """

    @property
    def answer(self) -> dict[str, Any]:
        return self.output

    def __repr__(self) -> str:
        return f"FinalAnswerResult({self.output!r})"
