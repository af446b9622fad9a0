"""The context a host tool call runs in, beyond its arguments: the caller's event loop, the interpreters whose tool
runs on a helper thread, and the cancel scope of a concurrent call. Each is a contextvar, carried to the tool
through the copied context it runs in."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from typing import Any

# The event loop of an aexecute() caller: async tools run on it, so they may use the caller's loop-bound
# resources (clients, sessions). Travels to the tool through the copied context.
CALLER_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "dspy_rust_interpreter_caller_loop", default=None
)

# Interpreters (by id) whose tool is running in this context on a helper thread (tool_timeout): the
# native re-entry check only knows the thread that called execute(), so a re-entering tool is refused here.
RUNNING_TOOL_OF: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "dspy_rust_interpreter_running_tool_of", default=frozenset()
)


def _mark_running_tool(owner_id: int) -> None:
    RUNNING_TOOL_OF.set(RUNNING_TOOL_OF.get() | {owner_id})


def tool_thread_context(owner_id: int, base: contextvars.Context | None = None) -> contextvars.Context:
    """A copy of ``base`` (default: the current context) for a tool of interpreter ``owner_id`` that runs on
    another thread, marked as such: the native re-entry check only knows the thread that called execute()."""
    context = base.copy() if base is not None else contextvars.copy_context()
    context.run(_mark_running_tool, owner_id)
    return context


class CancelScope:
    """How to cancel the coroutine of an async tool that a concurrent call runs (wherever its loop is), once
    the run that started the call is over."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancel: Callable[[], None] | None = None
        self.cancelled = False

    def enter(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        with self._lock:
            self._cancel = lambda: loop.call_soon_threadsafe(task.cancel)
            cancelled = self.cancelled
        if cancelled:
            self._cancel()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            cancel = self._cancel
        if cancel is not None:
            try:
                cancel()
            except RuntimeError:
                pass  # its loop has closed: the coroutine is over


# The scope of the concurrent call running in this context, if any (see ConcurrentCalls).
CANCEL_SCOPE: contextvars.ContextVar[CancelScope | None] = contextvars.ContextVar(
    "dspy_rust_interpreter_cancel_scope", default=None
)
