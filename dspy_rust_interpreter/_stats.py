"""The counters of one interpreter, which ``RustInterpreter.stats()`` returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SessionStats:
    """Counters of one interpreter; ``RustInterpreter.stats()`` returns them as a dict."""

    executes: int = 0
    errors: int = 0  # execute() calls that raised SyntaxError or CodeExecutionError
    timeouts: int = 0  # execute() calls stopped by the `timeout` option
    memory_errors: int = 0  # execute() calls that ended in MemoryError (the memory ceiling, mostly)
    rollbacks: int = 0  # execute() calls whose session process died, the session restored to before them
    tool_calls: dict[str, int] = field(default_factory=dict)
    tool_errors: dict[str, int] = field(default_factory=dict)
    tool_timeouts: int = 0
    tool_budget_refusals: int = 0
    tool_results_too_large: int = 0
    stream_items: int = 0
    sandbox_seconds: float = 0.0  # execute() wall time minus the time spent in tools
    tool_seconds: float = 0.0
    output_chars: int = 0  # characters printed or returned by execute() (an estimate for non-text values)

    def snapshot(self) -> dict[str, Any]:
        return {
            "executes": self.executes,
            "errors": self.errors,
            "timeouts": self.timeouts,
            "memory_errors": self.memory_errors,
            "rollbacks": self.rollbacks,
            "tool_calls": dict(self.tool_calls),
            "tool_calls_total": sum(self.tool_calls.values()),
            "tool_errors": dict(self.tool_errors),
            "tool_errors_total": sum(self.tool_errors.values()),
            "tool_timeouts": self.tool_timeouts,
            "tool_budget_refusals": self.tool_budget_refusals,
            "tool_results_too_large": self.tool_results_too_large,
            "stream_items": self.stream_items,
            "sandbox_seconds": self.sandbox_seconds,
            "tool_seconds": self.tool_seconds,
            "output_chars": self.output_chars,
        }
