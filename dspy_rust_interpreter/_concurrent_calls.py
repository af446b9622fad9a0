"""Host tool calls that async sandbox code starts, run at the same time.

``await search(a)`` (or ``asyncio.gather(search(a), search(b))``) in the sandbox starts each call on the host
at once; the native layer hands them to an interpreter's ``ConcurrentCalls``, which runs them on a thread
pool of ``max_concurrent_tools`` threads, each call in its own copy of the caller's contextvars context
(tools see dspy's settings, and a tool calling back into this interpreter is refused as on the caller's
thread). Async tools are awaited there too (on the ``aexecute()`` caller's loop when there is one). Outcomes
go back through an eventfd the native layer polls beside the session's socket. When a run ends with calls
still running, async ones are cancelled, sync ones finish on their own, and calls still queued are never
started; the outcomes of all are dropped. So a run's calls cost the host nothing once the run is over, and a
later run's calls do not queue behind them.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Callable
from typing import Any

from ._tool_context import CANCEL_SCOPE, CancelScope, tool_thread_context


class ConcurrentCalls:
    def __init__(self, max_workers: int, owner_id: int) -> None:
        self._max_workers = max_workers
        self._owner_id = owner_id
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._done: list[tuple[int, bool, Any]] = []
        self._scopes: list[CancelScope] = []  # of this run's calls
        self._queued: dict[int, tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = {}
        self._run = 0
        self._wake_fd: int | None = None  # made at the first call: most interpreters never start one

    def begin(self) -> int:
        """A new run starts: outcomes of earlier runs' calls are dropped from now on. The fd to poll."""
        with self._lock:
            self._run += 1
            self._done.clear()
            self._scopes.clear()
            self._queued.clear()
            if self._wake_fd is None:
                self._wake_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._drain()
        return self._wake_fd

    def start(self, call_id: int, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], context: Any) -> None:
        context = tool_thread_context(self._owner_id, context)
        scope = CancelScope()
        context.run(CANCEL_SCOPE.set, scope)
        with self._lock:
            run = self._run
            self._scopes.append(scope)
            # The call's arguments wait here, not in the pool's queue: a run that ends lets go of those of its
            # calls not yet started at once (they held a host copy of each argument until a worker came by).
            self._queued[call_id] = (func, args, kwargs)
            if self._executor is None:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self._max_workers, thread_name_prefix="dspy-rust-tool"
                )
        self._executor.submit(self._call, run, call_id, context)

    def _call(self, run: int, call_id: int, context: Any) -> None:
        with self._lock:
            queued = self._queued.pop(call_id, None) if run == self._run else None
        if queued is None:  # queued by a run that has ended: its arguments are gone, its outcome unwanted
            return
        func, args, kwargs = queued
        del queued
        try:
            outcome = (call_id, True, context.run(func, *args, **kwargs))
        except BaseException as error:  # noqa: BLE001 - handed to the sandbox as the tool's exception
            outcome = (call_id, False, error)
        del args, kwargs
        with self._lock:
            if run != self._run:
                return
            self._done.append(outcome)
        os.eventfd_write(self._wake_fd, 1)  # type: ignore[arg-type]  # made by begin(), before any call

    def take(self) -> list[tuple[int, bool, Any]]:
        """The outcomes handed back since the last take, as ``(call_id, ok, value or exception)``."""
        self._drain()
        with self._lock:
            done, self._done = self._done, []
        return done

    def _drain(self) -> None:
        if self._wake_fd is None:
            return
        try:
            os.eventfd_read(self._wake_fd)
        except BlockingIOError:
            pass

    def abandon(self) -> None:
        """The run is over with calls still running: cancel the async ones, drop every outcome to come."""
        with self._lock:
            self._run += 1
            self._done.clear()
            self._queued.clear()
            scopes, self._scopes = self._scopes, []
        for scope in scopes:
            scope.cancel()

    def close(self) -> None:
        """Shutdown: calls not yet started are dropped, async ones cancelled, sync ones finish on their own."""
        self.abandon()
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def __del__(self, _close: Callable[[int], None] = os.close) -> None:
        # Only once no worker holds this object: a call still running writes to the fd when it ends. (os.close
        # bound early: at interpreter exit the module's globals may already be gone.)
        if self._wake_fd is not None:
            _close(self._wake_fd)
