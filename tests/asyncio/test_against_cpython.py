"""asyncio in the sandbox behaves as CPython's: each program runs in the sandbox and in CPython (a child
process), and what it prints must be the same."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROGRAMS = {
    "gather-order-and-return-exceptions": """
        import asyncio
        async def job(i, delay):
            await asyncio.sleep(delay)
            if i == 2:
                raise ValueError(f"job {i} failed")
            return i * 10
        async def main():
            print(await asyncio.gather(job(0, 0.03), job(1, 0.01), job(3, 0.02)))
            results = await asyncio.gather(job(1, 0), job(2, 0), return_exceptions=True)
            print([repr(r) for r in results])
            try:
                await asyncio.gather(job(2, 0), job(1, 0.01))
            except ValueError as error:
                print("raised", error)
        asyncio.run(main())
    """,
    "sleep-orders-tasks": """
        import asyncio
        done = []
        async def waiter(name, delay):
            await asyncio.sleep(delay)
            done.append(name)
        async def main():
            await asyncio.gather(waiter("c", 0.03), waiter("a", 0.01), waiter("b", 0.02), waiter("now", 0))
            print(done)
            print(await asyncio.sleep(0, result="slept"))
        asyncio.run(main())
    """,
    "tasks-names-and-loop": """
        import asyncio
        async def child():
            return asyncio.current_task().get_name()
        async def main():
            loop = asyncio.get_running_loop()
            task = asyncio.create_task(child(), name="worker")
            print(await task, task.done(), task.result())
            print(asyncio.current_task() is not task, loop is asyncio.get_running_loop())
            print(loop.time() <= loop.time())
        asyncio.run(main())
        try:
            asyncio.get_running_loop()
        except RuntimeError as error:
            print("outside:", error)
    """,
    "wait-wait_for-as_completed": """
        import asyncio
        async def value(v, delay):
            await asyncio.sleep(delay)
            return v
        async def main():
            tasks = [asyncio.create_task(value(v, d)) for v, d in [("slow", 0.05), ("fast", 0.01)]]
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            print(sorted(t.result() for t in done), len(pending))
            await asyncio.wait(pending)
            print([await f for f in asyncio.as_completed([value(1, 0.03), value(2, 0.01), value(3, 0.02)])])
            try:
                await asyncio.wait_for(value("never", 1), timeout=0.01)
            except TimeoutError:
                print("wait_for timed out")
            print(await asyncio.wait_for(value("in time", 0), timeout=1))
        asyncio.run(main())
    """,
    "timeout-context": """
        import asyncio
        async def main():
            try:
                async with asyncio.timeout(0.01):
                    await asyncio.sleep(1)
            except TimeoutError:
                print("timed out")
            async with asyncio.timeout(None) as cm:
                await asyncio.sleep(0)
            print(cm.expired())
        asyncio.run(main())
    """,
    "taskgroup-results-and-errors": """
        import asyncio
        async def ok(v):
            await asyncio.sleep(0.01)
            return v
        async def bad(message):
            await asyncio.sleep(0)
            raise KeyError(message)
        async def main():
            async with asyncio.TaskGroup() as tg:
                tasks = [tg.create_task(ok(i)) for i in range(3)]
            print([t.result() for t in tasks])
            try:
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(ok(1))
                    tg.create_task(bad("a"))
                    tg.create_task(bad("b"))
            except* KeyError as group:
                print(type(group).__name__, sorted(repr(e) for e in group.exceptions))
        asyncio.run(main())
    """,
    "exception-group-message": """
        import asyncio
        async def bad():
            raise ValueError("boom")
        async def main():
            async with asyncio.TaskGroup() as tg:
                tg.create_task(bad())
        try:
            asyncio.run(main())
        except ExceptionGroup as group:
            print(group)
            print([type(e).__name__ for e in group.exceptions])
    """,
    "queue-producer-consumer": """
        import asyncio
        async def producer(queue):
            for i in range(5):
                await queue.put(i)
            await queue.put(None)
        async def consumer(queue, seen):
            while (item := await queue.get()) is not None:
                seen.append(item * item)
                queue.task_done()
            queue.task_done()
        async def main():
            queue, seen = asyncio.Queue(maxsize=2), []
            await asyncio.gather(producer(queue), consumer(queue, seen))
            await queue.join()
            print(seen, queue.empty())
            pq = asyncio.PriorityQueue()
            for item in [3, 1, 2]:
                pq.put_nowait(item)
            print([pq.get_nowait() for _ in range(3)])
            try:
                asyncio.Queue().get_nowait()
            except asyncio.QueueEmpty:
                print("empty")
        asyncio.run(main())
    """,
    "lock-event-semaphore-condition": """
        import asyncio
        async def main():
            lock, order = asyncio.Lock(), []
            async def critical(name):
                async with lock:
                    order.append(name + "+")
                    await asyncio.sleep(0.01)
                    order.append(name + "-")
            await asyncio.gather(critical("a"), critical("b"))
            print(order)
            event = asyncio.Event()
            async def setter():
                await asyncio.sleep(0.01)
                event.set()
            await asyncio.gather(event.wait(), setter())
            print(event.is_set())
            sem, active, peak = asyncio.Semaphore(2), [0], [0]
            async def limited():
                async with sem:
                    active[0] += 1
                    peak[0] = max(peak[0], active[0])
                    await asyncio.sleep(0.01)
                    active[0] -= 1
            await asyncio.gather(*(limited() for _ in range(5)))
            print("peak", peak[0])
            cond, items = asyncio.Condition(), []
            async def consume():
                async with cond:
                    await cond.wait_for(lambda: items)
                    return items.pop()
            async def produce():
                await asyncio.sleep(0.01)
                async with cond:
                    items.append("item")
                    cond.notify()
            print(await asyncio.gather(consume(), produce()))
        asyncio.run(main())
    """,
    "cancellation": """
        import asyncio
        async def worker(log):
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                log.append("cancelled inside")
                raise
        async def main():
            log = []
            task = asyncio.create_task(worker(log))
            await asyncio.sleep(0)
            print(task.cancel())
            try:
                await task
            except asyncio.CancelledError:
                log.append("caught outside")
            print(log, task.cancelled(), task.done())
            shielded = asyncio.create_task(asyncio.sleep(0.01, result="shielded"))
            outer = asyncio.ensure_future(asyncio.shield(shielded))
            await asyncio.sleep(0)
            outer.cancel()
            try:
                await outer
            except asyncio.CancelledError:
                print("outer cancelled", await shielded)
        asyncio.run(main())
    """,
    "exceptions-cross-awaits": """
        import asyncio
        async def inner():
            await asyncio.sleep(0)
            raise LookupError("deep")
        async def middle():
            return await inner()
        async def main():
            try:
                await middle()
            except LookupError as error:
                print(type(error).__name__, error, error.__traceback__ is not None)
            fut = asyncio.get_running_loop().create_future()
            fut.set_exception(ZeroDivisionError("set"))
            try:
                await fut
            except ZeroDivisionError as error:
                print("future raised", error)
            coroutine = middle()
            print(asyncio.iscoroutine(coroutine), asyncio.isfuture(fut))
            coroutine.close()
        asyncio.run(main())
    """,
    "to_thread-and-run_in_executor": """
        import asyncio
        def blocking(a, b):
            return a + b
        async def main():
            print(await asyncio.to_thread(blocking, 2, 3))
            print(await asyncio.get_running_loop().run_in_executor(None, blocking, "x", "y"))
        asyncio.run(main())
    """,
    "async-generators-and-comprehensions": """
        import asyncio
        async def ticks(n):
            for i in range(n):
                await asyncio.sleep(0)
                yield i
        async def main():
            print([i async for i in ticks(4)])
            async with asyncio.timeout(1):
                total = 0
                async for i in ticks(5):
                    total += i
            print(total)
        asyncio.run(main())
    """,
}


def cpython_output(program: str) -> str:
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_cpython_prints(interp, name):
    program = textwrap.dedent(PROGRAMS[name]).strip() + "\n"
    sandbox = interp.execute(program)
    assert (sandbox or "").rstrip("\n") == cpython_output(program).rstrip("\n")
