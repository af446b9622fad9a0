"""Async tools look synchronous in the sandbox; aexecute() does not block the event loop (point 3)."""

import asyncio
import contextvars
import threading

import pytest

from dspy_rust_interpreter import CodeExecutionError
from dspy_rust_interpreter._tool_calls import run_awaitable

request_id = contextvars.ContextVar("request_id", default="unset")


async def fetch(key: str) -> str:
    await asyncio.sleep(0.01)
    return f"{key}:{request_id.get()}"


def test_coroutine_tool_is_awaited_on_the_host(make_interp):
    interp = make_interp(tools={"fetch": fetch})
    assert interp.execute("fetch('a')") == "a:unset"


def test_callable_returning_an_awaitable_is_awaited(make_interp):
    interp = make_interp(tools={"later": lambda: fetch("b")})
    assert interp.execute("later()") == "b:unset"


def test_async_tool_error_arrives_with_its_type(make_interp):
    async def broken():
        raise KeyError("gone")

    interp = make_interp(tools={"broken": broken})
    with pytest.raises(CodeExecutionError, match="KeyError"):
        interp.execute("broken()")


def test_execute_called_from_inside_a_running_loop_still_runs_async_tools(make_interp):
    interp = make_interp(tools={"fetch": fetch})

    async def main():
        return interp.execute("fetch('c')")  # blocks the loop, but must not deadlock

    assert asyncio.run(main()) == "c:unset"


def test_aexecute_runs_async_tool_on_the_callers_loop_with_its_context(make_interp):
    loops = []

    async def where():
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0.01)
        return request_id.get()

    interp = make_interp(tools={"where": where})

    async def main():
        request_id.set("req-7")
        ticks = []

        async def ticker():
            for _ in range(5):
                ticks.append(1)
                await asyncio.sleep(0.005)

        result, _ = await asyncio.gather(interp.aexecute("where()"), ticker())
        return result, ticks, asyncio.get_running_loop()

    result, ticks, loop = asyncio.run(main())
    assert result == "req-7"
    assert len(ticks) == 5  # the loop kept running while the sandbox worked
    assert loops == [loop]


def test_run_awaitable_on_a_thread_that_already_runs_a_loop():
    async def inner():
        await asyncio.sleep(0)
        return threading.current_thread().name

    async def main():
        return run_awaitable(inner(), None, "t", 0), threading.current_thread().name

    name_used, caller = asyncio.run(main())
    assert name_used != caller  # a private loop on a helper thread, not the blocked one


def test_async_tool_timeout_cancels_the_coroutine(make_interp):
    cancelled = []

    async def slow():
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    interp = make_interp(tools={"slow": slow}, tool_timeout=0.1)
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("slow()")
    assert info.value.error_type == "TimeoutError"
    assert cancelled == [True]
