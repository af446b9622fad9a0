"""A sandboxed Python interpreter for DSPy, built on RustPython: each session in a confined process of its own.

``RustInterpreter`` implements DSPy's ``CodeInterpreter`` protocol (``dspy.RLM``, ``dspy.Flex``,
``ProgramOfThought``, ``CodeAct``)::

    import dspy
    from dspy_rust_interpreter import RustInterpreter

    rlm = dspy.RLM("context, query -> answer", interpreter_factory=RustInterpreter)
"""

# First: the zygote prepares on another core while the rest of this import (dspy's) runs (see _zygote_process).
from . import _zygote_process

_zygote_process.prestart()

from ._errors import (  # noqa: E402
    CodeExecutionError,
    CodeInterpreterError,
    FinalAnswerResult,
    FinalOutput,
    InvalidNameError,
    InvalidValueError,
)
from ._files import SessionFiles  # noqa: E402
from ._interpreter import ConfiguredInterpreter, RustInterpreter  # noqa: E402
from ._mounts import Mount  # noqa: E402
from ._pool import InterpreterPool, PoolExhaustedError  # noqa: E402

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
