"""Tools called from async sandbox code run at the same time on the host: `await tool(...)` works for every
tool, calls in flight together run together (sync tools on a bounded thread pool, async tools awaited there),
results and exceptions come back to the right caller, and the limits, counters and rollback hold."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest

from dspy_rust_interpreter import CodeExecutionError, RustInterpreter

GATHER_8 = "import asyncio, time\nt = time.perf_counter()\nr = await asyncio.gather(*({tool}(i) for i in range(8)))\n(r, time.perf_counter() - t)"


def sleepy(x):
    time.sleep(0.2)
    return x * 2


async def async_sleepy(x):
    await asyncio.sleep(0.2)
    return x * 2


@pytest.mark.parametrize("tool", [sleepy, async_sleepy], ids=["sync-tools", "async-tools"])
def test_eight_gathered_calls_run_at_the_same_time(make_interp, tool):
    interp = make_interp(tools={"work": tool})
    results, seconds = interp.execute(GATHER_8.format(tool="work"))
    assert results == [i * 2 for i in range(8)]
    # One after the other would take 1.6 s; the bound leaves room for a loaded 2-core machine.
    assert seconds < 1.0, seconds
    assert interp.stats()["tool_calls"] == {"work": 8}


def counting(seconds: float, result=lambda x: x):
    """A tool that takes `seconds`, and the most of its calls that ran at once (`peak[0]`)."""
    running, peak = [0], [0]
    lock = threading.Lock()

    def counted(x):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        return result(x)

    return counted, peak


def test_max_concurrent_tools_bounds_the_host_threads(make_interp):
    counted, peak = counting(0.1)
    interp = make_interp(tools={"work": counted}, max_concurrent_tools=2)
    assert interp.execute("import asyncio\nawait asyncio.gather(*(work(i) for i in range(6)))") == list(range(6))
    assert peak[0] == 2


def test_a_failing_call_raises_in_its_own_awaiter(make_interp):
    def boom(x):
        raise KeyError(f"no {x}")

    interp = make_interp(tools={"work": sleepy, "boom": boom})
    code = "import asyncio\nr = await asyncio.gather(work(1), boom('x'), work(2), return_exceptions=True)\n[type(v).__name__ for v in r], r[0], r[2], str(r[1])"
    assert interp.execute(code) == (["int", "KeyError", "int"], 2, 4, "\"tool 'boom' failed with KeyError: 'no x'\"")
    with pytest.raises(CodeExecutionError, match="KeyError: \"tool 'boom' failed with KeyError: 'no y'\""):
        interp.execute("await boom('y')")


def test_sync_code_still_gets_the_value_and_async_code_an_awaitable(make_interp):
    interp = make_interp(tools={"work": lambda x: x + 1})
    assert interp.execute("work(1)") == 2
    assert interp.execute("import asyncio\nasync def f():\n    return await work(2)\nasyncio.run(f())") == 3
    with pytest.raises(
        CodeExecutionError, match=r"AttributeError: work\(\.\.\.\) was called from async code, so it returns an awaitable"
    ):
        interp.execute("async def g():\n    return work(3).bit_length()\nawait g()")


def test_each_call_counts_against_max_tool_calls(make_interp):
    interp = make_interp(tools={"work": lambda x: x}, max_tool_calls=3)
    code = "import asyncio\nr = await asyncio.gather(*(work(i) for i in range(4)), return_exceptions=True)\nsorted(type(v).__name__ for v in r)"
    assert interp.execute(code) == ["RuntimeError", "int", "int", "int"]
    assert interp.stats()["tool_budget_refusals"] == 1


def test_calls_see_the_callers_context():
    setting: contextvars.ContextVar[str] = contextvars.ContextVar("setting", default="unset")
    interp = RustInterpreter(tools={"read": lambda: setting.get()})
    try:
        setting.set("from the caller")
        assert interp.execute("import asyncio\nawait asyncio.gather(read(), read())") == ["from the caller"] * 2
    finally:
        interp.shutdown()


def test_a_tool_calling_back_into_its_interpreter_is_refused_not_deadlocked():
    holder: list[RustInterpreter] = []

    def reenter():
        return holder[0].execute("1")

    interp = RustInterpreter(tools={"reenter": reenter}, timeout=10)
    holder.append(interp)
    try:
        with pytest.raises(CodeExecutionError, match="RuntimeError"):
            interp.execute("await reenter()")
        assert interp.execute("2") == 2
    finally:
        interp.shutdown()


def test_calls_left_running_by_a_cell_do_not_answer_a_later_one(make_interp):
    interp = make_interp(tools={"work": sleepy})
    interp.execute("import asyncio\nasync def start():\n    global pending\n    pending = work(100)\nawait start()")
    assert interp.execute("await asyncio.gather(work(1), work(2))") == [2, 4]


def test_time_waiting_for_host_calls_is_not_sandbox_time(make_interp):
    def slow(x):
        time.sleep(1.5)
        return x

    interp = make_interp(tools={"slow": slow}, timeout=1)
    assert interp.execute("import asyncio\nawait asyncio.gather(slow(1), slow(2))") == [1, 2]


def test_aexecute_runs_gathered_calls_at_the_same_time(make_interp):
    interp = make_interp(tools={"work": async_sleepy})

    async def main():
        return await interp.aexecute(GATHER_8.format(tool="work"))

    results, seconds = asyncio.run(main())
    assert results == [i * 2 for i in range(8)] and seconds < 1.0, seconds


def test_a_run_cannot_queue_host_work_without_bound(make_interp):
    # 1,000 calls may be running at once; past that a start is refused (the sandbox raises TypeError), so
    # code cannot make the host queue calls without bound. The held calls are let go after a moment.
    gate = threading.Event()

    def hold(i):
        gate.wait(10)
        return i

    interp = make_interp(tools={"hold": hold})
    threading.Timer(1.0, gate.set).start()
    code = "import asyncio\nr = await asyncio.gather(*(hold(i) for i in range(1010)), return_exceptions=True)\n[str(v) for v in r if isinstance(v, TypeError)]"
    refused = interp.execute(code)
    assert len(refused) == 10
    assert refused[0] == "tool 'hold' was not started: 1000 host calls are already running; await some first"


def test_async_calls_still_running_when_their_cell_ends_are_cancelled(make_interp):
    events: list[str] = []

    async def lingering():
        events.append("started")
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            events.append("cancelled")
            raise
        events.append("finished")

    interp = make_interp(tools={"lingering": lingering})
    interp.execute(
        "import asyncio\nasync def start():\n    global left\n    left = lingering()\n    await asyncio.sleep(0.2)\nawait start()"
    )
    deadline = time.monotonic() + 3
    while "cancelled" not in events and time.monotonic() < deadline:
        time.sleep(0.02)
    assert events == ["started", "cancelled"]


def test_a_call_left_running_by_an_ended_cell_fails_when_awaited_later(make_interp):
    interp = make_interp(tools={"work": sleepy})
    interp.execute("import asyncio\nasync def start():\n    global left\n    left = work(1)\nawait start()")
    with pytest.raises(CodeExecutionError, match=r"RuntimeError: work\(\) was still running when the cell that called it ended"):
        interp.execute("await left")
    started = time.perf_counter()
    assert interp.execute("await asyncio.sleep(0.3, result='slept')") == "slept"
    assert time.perf_counter() - started < 2


def test_a_thread_pool_runs_submitted_tool_calls_at_the_same_time(make_interp):
    """`ThreadPoolExecutor.map(tool, ...)` and `submit(tool, ...)`, as model code fans out llm_query: the calls run
    on the host together, up to `max_workers` at once, and their results and errors come back in CPython's order."""

    def tenfold(x):
        if x == 5:
            raise ValueError("five")
        return x * 10

    counted, peak = counting(0.05, tenfold)
    interp = make_interp(tools={"work": counted})
    shown = interp.execute(
        "from concurrent.futures import ThreadPoolExecutor, as_completed\n"
        "with ThreadPoolExecutor(max_workers=3) as pool:\n"
        "    mapped = list(pool.map(work, [0, 1, 2, 3]))\n"
        "    futures = {pool.submit(work, n): n for n in range(4, 8)}\n"
        "    done = sorted((futures[f], f.exception() is not None) for f in as_completed(futures))\n"
        "(mapped, done)"
    )
    assert shown == ([0, 10, 20, 30], [(4, False), (5, True), (6, False), (7, False)])
    assert 2 <= peak[0] <= 3
