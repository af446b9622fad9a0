"""One host tool call: argument checks, guards (budget, timeout), async and streaming results, logging, each
counted in the interpreter's ``SessionStats`` (``_stats``).

The native layer calls a ``ToolCall`` (the callable of a ``ToolSpec``) when the session process asks for it,
on the ``execute()`` caller's own thread, inside a copy of its contextvars context, while it waits, and
converts its result (counting it against ``max_tool_result_bytes`` as it goes: ``src/host/tools.rs``). The
rest of what a session does with tools, the items of a stream and the calls async code runs at once, reaches
this layer through the interpreter's ``_native.ToolHooks``.
"""

from __future__ import annotations

import asyncio
import collections.abc
import inspect
import itertools
import logging
import threading
import time
import types
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _native
from ._callbacks import reported
from ._concurrent_calls import ConcurrentCalls
from ._stats import SessionStats
from ._tool_context import CALLER_LOOP, CANCEL_SCOPE, CancelScope, tool_thread_context
from ._tool_types import ArgumentChecks
from ._tools import describe_tool

if TYPE_CHECKING:
    from ._native import ToolSpec

logger = logging.getLogger("dspy_rust_interpreter")

# Results of these types go straight back to the sandbox (the native layer converts them).
PLAIN_RESULTS = frozenset({str, int, float, bool, type(None), list, dict, tuple, bytes, set, frozenset})


async def _in_scope(coroutine: Any, scope: CancelScope) -> Any:
    task = asyncio.current_task()
    assert task is not None
    scope.enter(asyncio.get_running_loop(), task)
    return await coroutine


@dataclass
class OpenStream:
    tool: str
    iterator: Any
    is_async: bool


class ToolRuntime:
    """What the tool calls of one interpreter share: guard options, counters, open streams, callbacks."""

    def __init__(self, owner: Any, options: _native.Options) -> None:
        self.owner = weakref.ref(owner)
        self.owner_id = id(owner)
        self.timeout: float | None = options.host.tool_timeout
        self.max_calls: int | None = options.host.max_tool_calls
        self.slow_seconds: float = options.host.slow_tool_seconds
        self.stats = SessionStats()
        self.calls_made = 0
        # How long the last call's tool ran (`own.seconds`): what the native layer exempts from the session's time
        # limit, read right after the call returns on the run's thread. (A call async code started may write it
        # meanwhile from a pool thread; the exempt time is never more than the wait it was measured in.)
        self.own = types.SimpleNamespace(seconds=0.0)
        self.calls: dict[str, ToolCall] = {}
        # The streams this interpreter's tools opened and the sandbox has not finished, by id.
        self.streams: dict[int, OpenStream] = {}
        self._stream_ids = itertools.count(1)
        # Set per execute(): report each tool call through dspy's callbacks (only when some are active).
        self.report_calls = False
        # Runs the calls async sandbox code has in flight at once (no thread until the first such call).
        self.concurrent = ConcurrentCalls(options.host.max_concurrent_tools, self.owner_id)
        concurrent = self.concurrent
        self.hooks = _native.ToolHooks(
            pull_stream=self.pull_stream,
            begin=concurrent.begin,
            start=concurrent.start,
            take=concurrent.take,
            abandon=concurrent.abandon,
        )

    # -- results ---------------------------------------------------------------------------------------------

    def finish_result(self, name: str, result: Any) -> Any:
        """A result that is not plain data: await it, or open a stream over it; else hand it on as it is."""
        if _is_awaitable(result):
            result = run_awaitable(result, self.timeout, name, self.owner_id)
            if result.__class__ in PLAIN_RESULTS:
                return result
        if isinstance(result, collections.abc.Iterator):
            return self._open_stream(name, result, is_async=False)
        if isinstance(result, collections.abc.AsyncIterator):
            return self._open_stream(name, result, is_async=True)
        return result  # the native layer converts models and dataclasses, and rejects the rest

    # -- streams ---------------------------------------------------------------------------------------------

    def _open_stream(self, name: str, iterator: Any, is_async: bool) -> _native.StreamOpened:
        stream = next(self._stream_ids)
        self.streams[stream] = OpenStream(name, iterator, is_async)
        return _native.StreamOpened(stream)

    def pull_stream(self, name: str, stream: int, close: bool) -> tuple[bool, Any]:
        """The sandbox's end of stream ``stream`` of tool ``name`` asks for its next item: ``(True, item)``,
        or ``(False, None)`` at its end; with ``close``, it ends the stream."""
        open_stream = self.streams.get(stream)
        if open_stream is None or open_stream.tool != name:
            if close:
                return (False, None)
            raise RuntimeError(
                "this stream is closed: a tool's stream lasts until it is exhausted, closed, or the end of the "
                f"execute() that opened it; call {name}(...) again for a new one"
            )
        if close:
            self.close_stream(stream)
            return (False, None)
        started = time.perf_counter()
        try:
            item = self._pull(open_stream, name)
        except StopIteration:
            del self.streams[stream]
            return (False, None)
        except BaseException:
            # A generator that raised is finished; one still running past tool_timeout cannot be closed.
            self.streams.pop(stream, None)
            raise
        finally:
            self.stats.tool_seconds += time.perf_counter() - started
        self.stats.stream_items += 1
        return (True, item)

    def _pull(self, stream: OpenStream, name: str) -> Any:
        if stream.is_async:
            try:
                return run_awaitable(stream.iterator.__anext__(), self.timeout, name, self.owner_id)
            except StopAsyncIteration:
                raise StopIteration from None
        if self.timeout is None:
            return next(stream.iterator)
        return call_with_timeout(next, (stream.iterator,), {}, self.timeout, name, self.owner_id)

    def close_stream(self, stream_id: int) -> None:
        stream = self.streams.pop(stream_id, None)
        if stream is None:
            return
        try:
            if stream.is_async:
                closer = getattr(stream.iterator, "aclose", None)
                if closer is not None:
                    run_awaitable(closer(), self.timeout, stream.tool, self.owner_id)
            else:
                closer = getattr(stream.iterator, "close", None)
                if closer is not None:
                    closer()
        except Exception as error:  # noqa: BLE001 - a generator failing to close must not fail the run
            logger.warning("closing the stream of tool %r failed: %s: %s", stream.tool, type(error).__name__, error)

    def close_streams(self) -> None:
        """End of execute() or shutdown: every stream still open is abandoned; close its host generator."""
        for stream_id in list(self.streams):
            self.close_stream(stream_id)


class ToolCall:
    """The host side of one tool: what the native layer calls with the sandbox's arguments."""

    __slots__ = ("name", "func", "checks", "runtime", "is_async", "_reported", "__weakref__")

    def __init__(self, name: str, func: Callable[..., Any], checks: ArgumentChecks | None, runtime: ToolRuntime):
        self.name = name
        self.func = func
        self.checks = checks
        self.runtime = runtime
        # A coroutine function needs no thread for its timeout: it is awaited under asyncio.wait_for.
        self.is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))  # noqa: B004 - an object whose __call__ is async
        self._reported: Callable[..., Any] | None = None  # made when dspy callbacks first watch a call

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:  # self positional-only: a tool may take "self="
        runtime = self.runtime
        if runtime.report_calls:
            owner = runtime.owner()
            if owner is not None:
                if self._reported is None:
                    self._reported = _reported_invoke(self)
                return self._reported(owner, self.name, list(args), kwargs)
        return self.invoke(args, kwargs)

    def invoke(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Check, guard, run and account for one call. The hot path: keep it lean."""
        runtime = self.runtime
        stats = runtime.stats
        name = self.name
        stats.tool_calls[name] = stats.tool_calls.get(name, 0) + 1
        started = time.perf_counter()
        # Only the tool's own run is exempt from the session's time limit (the native layer reads this after the
        # call): checking the arguments is the session's work, and values it chose can make that slow (a set
        # of ints colliding on the host, checked against `set[int]`, can make a 1 s run go on for minutes).
        own = runtime.own
        own.seconds = 0.0
        try:
            if self.checks is not None:
                args, kwargs = self.checks.apply(args, kwargs)
            if runtime.max_calls is not None:
                self._spend_budget()
            own_started = time.perf_counter()
            try:
                if runtime.timeout is None or self.is_async:
                    result = self.func(*args, **kwargs)
                else:
                    result = call_with_timeout(self.func, args, kwargs, runtime.timeout, name, runtime.owner_id)
            finally:
                own.seconds = time.perf_counter() - own_started
            if result.__class__ not in PLAIN_RESULTS:
                result = runtime.finish_result(name, result)
        except BaseException as error:
            elapsed = time.perf_counter() - started
            stats.tool_seconds += elapsed
            stats.tool_errors[name] = stats.tool_errors.get(name, 0) + 1
            if isinstance(error, TimeoutError) and getattr(error, "tool_timeout", False):
                stats.tool_timeouts += 1
            self._log(args, kwargs, elapsed, f"{type(error).__name__}: {error}")
            raise
        elapsed = time.perf_counter() - started
        stats.tool_seconds += elapsed
        if elapsed >= runtime.slow_seconds or logger.isEnabledFor(logging.DEBUG):
            self._log(args, kwargs, elapsed, "ok")
        return result

    def _spend_budget(self) -> None:
        runtime = self.runtime
        assert runtime.max_calls is not None
        if runtime.calls_made >= runtime.max_calls:
            runtime.stats.tool_budget_refusals += 1
            raise RuntimeError(
                f"the tool-call budget of this session is used up (max_tool_calls={runtime.max_calls}); no more "
                "tool calls are possible: finish with what you have"
            )
        runtime.calls_made += 1

    def _log(self, args: tuple[Any, ...], kwargs: dict[str, Any], elapsed: float, outcome: str) -> None:
        slow = elapsed >= self.runtime.slow_seconds
        if not slow and not logger.isEnabledFor(logging.DEBUG):
            return
        logger.log(
            logging.WARNING if slow else logging.DEBUG,
            "tool %r%s: %.1f ms, arguments %s, %s",
            self.name,
            f" was slow (over slow_tool_seconds={self.runtime.slow_seconds})" if slow else "",
            elapsed * 1000,
            ", ".join([*(f"#{i}" for i in range(len(args))), *kwargs]) or "none",
            outcome,
        )


def _reported_invoke(call: ToolCall) -> Callable[..., Any]:
    """``call`` as dspy's callbacks see an interpreter's tool call: a method ``invoke_tool(self, tool_name, args,
    kwargs)`` of the interpreter (``_callbacks.reported`` applies dspy's decorator, which names the operation
    after the function and takes the inputs from its parameters), calling this tool directly."""

    def invoke_tool(self: Any, tool_name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return call.invoke(tuple(args), kwargs)

    return reported(invoke_tool)


# -- timeouts and awaitables ---------------------------------------------------------------------------------


def _tool_timeout_error(name: str, seconds: float) -> TimeoutError:
    error = TimeoutError(
        f"no result within tool_timeout={seconds:g} s (the host may still be finishing it); try a smaller "
        "request, or go on without this result"
    )
    error.tool_timeout = True  # type: ignore[attr-defined]
    return error


def call_with_timeout(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], seconds: float, name: str, owner_id: int
) -> Any:
    """Run a sync tool on a daemon thread and wait at most ``seconds``; the thread may outlive the wait."""
    context = tool_thread_context(owner_id)
    outcome: list[Any] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append((True, context.run(func, *args, **kwargs)))
        except BaseException as error:  # noqa: BLE001 - handed to the waiting call
            outcome.append((False, error))
        finally:
            done.set()

    # A daemon thread, not a pool: a tool that never returns must not keep the process from exiting.
    threading.Thread(target=run, name=f"dspy-rust-tool-{name}", daemon=True).start()
    if not done.wait(seconds):
        raise _tool_timeout_error(name, seconds)
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def _is_awaitable(value: Any) -> bool:
    # Not asyncio.iscoroutine: on 3.11 it also says yes to plain generators (the old generator coroutines).
    return inspect.isawaitable(value)


async def _await(awaitable: Any) -> Any:
    return await awaitable


def run_awaitable(awaitable: Any, seconds: float | None, name: str, owner_id: int) -> Any:
    """Await ``awaitable`` for a synchronous caller, whatever loop the calling thread has or lacks.

    On an ``aexecute()`` caller's loop when there is one (the tool may use that loop's resources); else on
    a private loop here (``asyncio.run``); else, when this thread already runs a loop that must not be
    blocked from inside, on a private loop in a helper thread.
    """
    coroutine = awaitable if inspect.iscoroutine(awaitable) else _await(awaitable)
    if seconds is not None:
        coroutine = _with_timeout(coroutine, seconds, name)
    scope = CANCEL_SCOPE.get()
    if scope is not None:
        coroutine = _in_scope(coroutine, scope)
    caller_loop = CALLER_LOOP.get()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is None and not (caller_loop is not None and caller_loop.is_running()):
        return asyncio.run(coroutine)  # on this thread: the native re-entry check sees it
    context = tool_thread_context(owner_id)
    if caller_loop is not None and caller_loop is not running and caller_loop.is_running():
        # The task takes its context from the one run_coroutine_threadsafe is called in.
        return context.run(_run_on_loop, coroutine, caller_loop)
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, context.run(asyncio.run, coroutine)))
        except BaseException as error:  # noqa: BLE001 - handed to the waiting call
            outcome.append((False, error))

    helper = threading.Thread(target=run, name=f"dspy-rust-tool-{name}", daemon=True)
    helper.start()
    helper.join()
    ok, value = outcome[0]
    if ok:
        return value
    raise value


async def _with_timeout(coroutine: Any, seconds: float, name: str) -> Any:
    try:
        return await asyncio.wait_for(coroutine, seconds)
    except asyncio.TimeoutError:
        raise _tool_timeout_error(name, seconds) from None


def _run_on_loop(coroutine: Any, loop: asyncio.AbstractEventLoop) -> Any:
    future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    while True:
        try:
            return future.result(timeout=0.25)
        except TimeoutError:
            if future.done():
                continue
            if loop.is_closed() or not loop.is_running():
                future.cancel()
                raise RuntimeError("the event loop that called aexecute() stopped while an async tool ran") from None


def build_tool_specs(tools: Mapping[str, Callable[..., Any]], runtime: ToolRuntime) -> list[ToolSpec]:
    """One spec per tool, for the native layer: the guarded host call, binding, and the stand-in's source."""
    specs = []
    calls = {}
    for name, func in tools.items():
        checks, source = describe_tool(name, func)
        call = ToolCall(name, func, checks, runtime)
        calls[name] = call
        specs.append((name, call, source))
    runtime.calls = calls
    return specs
