"""A cell may await at top level, as in IPython: it runs on the session's own event loop, its names land in
the session's globals, and a cell without top-level await runs exactly as before."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError

WORK = "import asyncio\nasync def work(n):\n    await asyncio.sleep(0.01)\n    return n * 2\n"


def test_names_assigned_after_an_await_are_globals(interp):
    interp.execute("import asyncio\nawait asyncio.sleep(0)\nx = 1")
    assert interp.execute("x + 1") == 2


def test_a_trailing_await_is_the_cell_value(interp):
    assert interp.execute("import asyncio\nawait asyncio.sleep(0, result=5)") == 5


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("await asyncio.gather(*(work(i) for i in range(3)))", [0, 2, 4]),
        ("[await work(i) for i in range(3)]", [0, 2, 4]),
        ("async with asyncio.timeout(5):\n    y = await work(10)\ny", 20),
        ("total = 0\nasync for i in ticks():\n    total += i\ntotal", 3),
        ("async with asyncio.TaskGroup() as tg:\n    t = tg.create_task(work(1))\nt.result()", 2),
    ],
    ids=["gather", "comprehension", "async-with", "async-for", "taskgroup"],
)
def test_async_statements_at_top_level(interp, code, expected):
    interp.execute(WORK + "async def ticks():\n    for i in range(3):\n        yield i\n")
    assert interp.execute(code) == expected


def test_printed_output_around_awaits_is_kept_in_order(interp):
    assert interp.execute("import asyncio\nprint('a')\nawait asyncio.sleep(0)\nprint('b')") == "a\nb\n"


def test_a_task_started_in_one_cell_finishes_in_a_later_one(interp):
    interp.execute(WORK)
    interp.execute("task = asyncio.get_running_loop().create_task(work(21))\nawait asyncio.sleep(0)")
    assert interp.execute("task.done()") is False
    assert interp.execute("await task") == 42


def test_a_cell_without_top_level_await_runs_as_before(interp):
    interp.execute(WORK)
    assert interp.execute("asyncio.run(work(4))") == 8
    with pytest.raises(CodeExecutionError, match="RuntimeError: no running event loop"):
        interp.execute("asyncio.get_running_loop()")


def test_await_inside_a_plain_function_is_still_a_syntax_error(interp):
    with pytest.raises(SyntaxError, match="'await' outside async function"):
        interp.execute("def f():\n    await g()")


def test_an_error_in_an_awaited_coroutine_shows_the_cell_not_the_loop(interp):
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("import asyncio\nasync def bad():\n    raise ValueError('nope')\nawait bad()")
    error = raised.value
    assert error.error_type == "ValueError" and "nope" in str(error)
    assert error.traceback.splitlines()[1] == '  File "<cell 1>", line 4, in <module>', error.traceback
    assert "asyncio" not in error.traceback and "_sandbox_async" not in error.traceback


def test_a_failed_await_cell_leaves_the_session_and_its_loop_usable(interp):
    interp.execute(WORK + "n = 1")
    with pytest.raises(CodeExecutionError, match="ZeroDivisionError"):
        interp.execute("n = 2\nawait work(1)\n1 / 0")
    assert interp.execute("await work(n)") == 4
