"""Threads: one instance shared by many Python threads, instances in parallel, GIL release, lifecycle."""

from __future__ import annotations

import threading

import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, RustInterpreter


def _run_threads(target, count, *, timeout=120):
    errors = []

    def guarded(index):
        try:
            target(index)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(n,), daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread is stuck"
    assert errors == []


def test_concurrent_executes_on_one_instance_are_serialised(interp):
    interp.execute("counter = 0")

    def work(_):
        for _ in range(200):
            interp.execute("current = counter\ncounter = current + 1")

    _run_threads(work, 4)
    assert interp.execute("counter") == 800


def test_concurrent_executes_each_get_only_their_own_output(interp):
    mismatches = []

    def work(index):
        for round_ in range(50):
            expected = f"thread {index} round {round_}"
            got = interp.execute(f"print({expected!r})\nprint({expected!r})")
            if got != f"{expected}\n{expected}\n":
                mismatches.append(got)

    _run_threads(work, 4)
    assert mismatches == []


def test_concurrent_executes_each_get_their_own_variables(interp):
    mismatches = []

    def work(index):
        for round_ in range(50):
            got = interp.execute("value", variables={"value": [index, round_]})
            if got != [index, round_]:
                mismatches.append(got)

    _run_threads(work, 4)
    assert mismatches == []


def test_two_instances_in_parallel_threads_do_not_share_state():
    first, second = RustInterpreter(), RustInterpreter()
    results = {}
    try:

        def work(index):
            interp = (first, second)[index]
            interp.execute(f"mine = {index}")
            for _ in range(100):
                interp.execute(f"mine = mine + {index + 1}")
            results[index] = interp.execute("mine, 'other' in globals()")

        _run_threads(work, 2)
    finally:
        first.shutdown()
        second.shutdown()
    assert results == {0: (100, False), 1: (201, False)}


def test_execute_releases_the_gil_while_sandbox_runs(make_interp):
    phase = {"running": False}
    started = threading.Event()

    def begin():
        phase["running"] = True
        started.set()

    def end():
        phase["running"] = False

    interp = make_interp(tools={"begin": begin, "end": end})
    result = {}

    def run():
        result["value"] = interp.execute("begin()\nn = 0\nfor i in range(2_000_000):\n    n += i\nend()\nn")

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    assert started.wait(60)
    progress = 0
    while phase["running"]:
        progress += 1
    worker.join(120)
    assert not worker.is_alive()
    assert result["value"] == sum(range(2_000_000))
    assert progress > 0


def test_shutdown_is_idempotent():
    interp = RustInterpreter()
    interp.execute("1")
    interp.shutdown()
    interp.shutdown()
    with pytest.raises(CodeInterpreterError):
        interp.execute("1")


def test_shutdown_is_terminal_for_start_and_execute():
    interp = RustInterpreter()
    interp.start()
    interp.shutdown()
    with pytest.raises(CodeInterpreterError):
        interp.start()
    with pytest.raises(CodeInterpreterError):
        interp.execute("1")


def test_context_manager_starts_returns_self_and_shuts_down():
    with RustInterpreter() as interp:
        assert isinstance(interp, RustInterpreter)
        assert interp.execute("6 * 7") == 42
    with pytest.raises(CodeInterpreterError):
        interp.execute("1")


def test_context_manager_shuts_down_when_body_raises():
    with pytest.raises(ZeroDivisionError):
        with RustInterpreter() as interp:
            1 / 0  # noqa: B018 -- the tool fails on purpose
    with pytest.raises(CodeInterpreterError):
        interp.execute("1")


def test_instances_can_be_created_and_shut_down_fifty_times():
    for index in range(50):
        interp = RustInterpreter()
        assert interp.execute("x * 2", variables={"x": index}) == index * 2
        interp.shutdown()


def test_concurrent_shutdown_while_other_threads_execute_ends_cleanly():
    interp = RustInterpreter()
    interp.execute("1")
    outcomes = []

    def work(_):
        for _ in range(20):
            try:
                interp.execute("sum(range(1000))")
                outcomes.append("ok")
            except CodeExecutionError:
                outcomes.append("execution error")
            except CodeInterpreterError:
                outcomes.append("closed")

    threads = [threading.Thread(target=work, args=(n,), daemon=True) for n in range(3)]
    for thread in threads:
        thread.start()
    interp.shutdown()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert len(outcomes) == 60
    assert set(outcomes) <= {"ok", "closed"}
