"""A sandboxed Python interpreter for DSPy, built on RustPython: each session in a confined process of its own.

``RustInterpreter`` implements DSPy's ``CodeInterpreter`` protocol (``dspy.RLM``, ``dspy.Flex``,
``ProgramOfThought``, ``CodeAct``)::

    import dspy
    from dspy_rust_interpreter import RustInterpreter

    rlm = dspy.RLM("context, query -> answer", interpreter_factory=RustInterpreter)
"""

from ._errors import (
    CodeExecutionError,
    CodeInterpreterError,
    FinalAnswerResult,
    FinalOutput,
    InvalidNameError,
    InvalidValueError,
)
from ._files import SessionFiles
from ._interpreter import ConfiguredInterpreter, RustInterpreter
from ._mounts import Mount
from ._pool import InterpreterPool, PoolExhaustedError

__all__ = [
    "CodeExecutionError",
    "CodeInterpreterError",
    "ConfiguredInterpreter",
    "FinalAnswerResult",
    "FinalOutput",
    "InterpreterPool",
    "InvalidNameError",
    "InvalidValueError",
    "Mount",
    "PoolExhaustedError",
    "RustInterpreter",
    "SessionFiles",
]
__version__ = "0.1.0"
