"""Type stubs for the private extension module (see src/session.rs). Users never touch it directly."""

from contextvars import Context
from typing import Any, Callable

# (name, callable, parameter names positional arguments bind to, or None to pass them through)
ToolSpec = tuple[str, Callable[..., Any], tuple[str, ...] | list[str] | None, str | None]
# (name, declared simple type or None)
FieldSpec = tuple[str, str | None]

class PanicException(BaseException):
    """PyO3's report of a Rust panic behind a method call."""

class Session:
    """One sandboxed VM on its own worker thread."""

    def __init__(
        self,
        timeout: float | None = None,
        grace: float = 5.0,
        max_output_chars: int = 10_000_000,
        memory_limit: int | None = None,
        preload: list[str] | tuple[str, ...] = ...,
    ) -> None:
        """Raises ValueError when a module in ``preload`` cannot be imported in the sandbox."""
    def execute(
        self,
        code: str,
        variables: dict[str, Any] | None = None,
        tools: list[ToolSpec] | None = None,
        fields: list[FieldSpec] | None = None,
        context: Context | None = None,
    ) -> tuple[Any, ...]:
        """Run code. The tuple's first item says what happened:

        ("value", result) | ("submit", fields) | ("final", fields)
        | ("syntax", msg, lineno, offset, text) | ("error", type_name, message, traceback, output)
        | ("dead", reason). Raises TypeError when a variable cannot enter the sandbox (nothing is bound).
        """
    def shutdown(self) -> None: ...
    def _inject_fault(self, place: str) -> None:
        """Tests only: the next execute panics in Rust ("vm", "tool", "handle") or its VM thread dies of a
        fatal signal ("stack_overflow", "abort")."""
    def would_wait_on_itself(self) -> bool:
        """True when called from a tool this session is waiting for (directly or through other sessions)."""
    @property
    def alive(self) -> bool: ...
    @property
    def death_reason(self) -> str: ...
    @property
    def _worker(self) -> int:
        """Tests only: the serial number of the worker thread hosting this session (threads are reused)."""
