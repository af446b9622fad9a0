"""The session survives every fault of its process: when the session process dies (an abort, a Rust panic, a
native stack overflow, an allocation that cannot fail, a native operation that ignores its stop), the host
kills what is left of it and the session goes on from its last good state. The caller gets
CodeExecutionError naming what happened, and the next execute() sees every variable as it stood before the
failed cell. A Rust panic on the host's side (the native handle) still ends only that session.

Every scenario runs in a child process (``run_isolated``), so a crash or hang is a failure of its own.
"""

from __future__ import annotations

import pytest
from isolated import run_isolated

# What the session process dies of, and the error type the caller sees.
FAULTS = [
    ("vm", "SystemError"),
    ("abort", "SystemError"),
    ("stack_overflow", "SystemError"),
]


@pytest.mark.parametrize(("place", "error_type"), FAULTS)
def test_a_dying_session_process_is_rolled_back_to_before_the_cell(place, error_type):
    results = run_isolated(
        f"""
        interp = RustInterpreter(tools={{"echo": lambda value: value}})
        interp.execute("x = 1\\ndef f():\\n    return x + 1")
        first_pid = interp._session.pid
        interp._session._inject_fault({place!r})
        results["run"] = outcome(interp, "x = 2\\necho(x)")
        results["after"] = outcome(interp, "(x, f(), echo('tools still work'))")
        results["pids"] = [first_pid, interp._session.pid]
        results["again"] = outcome(interp, "x = 3\\nx")
        interp.shutdown()
        """
    )
    run = results["run"]
    assert run["kind"] == "error" and run["type"] == error_type, run
    assert "variables are as they were before this cell" in run["message"], run
    assert results["after"]["value"] == "(1, 2, 'tools still work')", results["after"]
    assert results["pids"][0] != results["pids"][1], "a new process serves the session"
    assert results["again"]["value"] == "3"


@pytest.mark.parametrize("place", ["tool", "handle"])
def test_a_panic_in_the_host_handle_kills_only_its_session(place):
    results = run_isolated(
        f"""
        bystander = RustInterpreter()
        bystander.execute("kept = 'bystander'")
        interp = RustInterpreter(tools={{"echo": lambda value: value}})
        interp.execute("x = 1")
        interp._session._inject_fault({place!r})
        results["run"] = outcome(interp, "echo(x)")
        results["again"] = outcome(interp, "x")
        interp.shutdown()
        results["bystander"] = outcome(bystander, "kept")
        results["new"] = outcome(RustInterpreter(), "40 + 2")
        """
    )
    assert results["run"]["kind"] == "dead"
    assert "fault injected" in results["run"]["message"]
    assert results["again"]["kind"] == "dead"
    assert results["bystander"]["value"] == "'bystander'"
    assert results["new"]["value"] == "42"


def test_many_faults_in_a_row_each_roll_back():
    results = run_isolated(
        """
        interp = RustInterpreter()
        interp.execute("n = 0")
        kinds = []
        for i in range(5):
            interp.execute("n += 1")
            interp._session._inject_fault("abort")
            kinds.append(outcome(interp, "n = -1")["type"])
        results["kinds"] = kinds
        results["n"] = outcome(interp, "n")
        interp.shutdown()
        """
    )
    assert results["kinds"] == ["SystemError"] * 5
    assert results["n"]["value"] == "5"


def test_the_runs_since_the_last_checkpoint_are_replayed_without_calling_tools_again():
    # Checkpoints are forked every few runs; the runs in between are replayed after a rollback, their tool
    # calls answered from the journal.
    results = run_isolated(
        """
        calls = []
        def fetch(i):
            calls.append(i)
            return i * 10
        interp = RustInterpreter(tools={"fetch": fetch})
        interp.execute("seen = []")
        for i in range(13):
            interp.execute(f"seen.append(fetch({i}))")
        before = len(calls)
        interp._session._inject_fault("abort")
        results["run"] = outcome(interp, "seen.append('lost')")
        results["after"] = outcome(interp, "seen")
        results["tool_calls"] = [before, len(calls)]
        interp.shutdown()
        """
    )
    assert "variables are as they were before this cell" in results["run"]["message"], results["run"]
    assert results["after"]["value"] == repr([i * 10 for i in range(13)])
    assert results["tool_calls"] == [13, 13], "replayed runs do not call host tools again"


def test_checkpoints_are_forked_per_second_of_runs_not_after_each_long_run():
    # A checkpoint costs the runs after it a copy of every heap page they touch, so it is forked once the
    # runs since the last one took a second in all, not after each run of some milliseconds. Cells that
    # print the clock end differently when replayed, which the rollback's message counts.
    results = run_isolated(
        """
        import time
        interp = RustInterpreter(timeout=None)
        busy = "t = time.monotonic_ns()\\nwhile time.monotonic_ns() - t < {ms} * 10**6:\\n    pass\\nprint(time.time_ns())"
        interp.execute("import time")
        for _ in range(3):
            interp.execute(busy.format(ms=30))
            time.sleep(0.02)  # a quiet moment, where a due checkpoint is forked
        interp._session._inject_fault("abort")
        results["short"] = outcome(interp, "x = 1")
        interp.execute(busy.format(ms=1100))
        time.sleep(0.05)
        interp._session._inject_fault("abort")
        results["long"] = outcome(interp, "x = 1")
        interp.shutdown()
        """
    )
    assert "3 of the 4 earlier cell(s) replayed" in results["short"]["message"], results["short"]
    assert "differently" not in results["long"]["message"], results["long"]


def test_large_values_and_tool_results_are_replayed_exactly():
    # Large str/bytes go out of line, in the frame's own pages; a replay sends the same frames again.
    results = run_isolated(
        """
        big = "é" + "x" * (3 << 20)
        blob = bytes(range(256)) * 8192
        interp = RustInterpreter(tools={"fetch": lambda: blob})
        interp.execute("a = doc[:2] + doc[-1]\\nb = fetch()", variables={"doc": big})
        interp._session._inject_fault("abort")
        results["run"] = outcome(interp, "a = 'lost'")
        results["after"] = outcome(interp, "(a, len(doc), doc == 'é' + 'x' * (3 << 20), b == bytes(range(256)) * 8192)")
        interp.shutdown()
        """
    )
    assert "variables are as they were before this cell" in results["run"]["message"], results["run"]
    assert results["after"]["value"] == repr(("éx" + "x", (3 << 20) + 1, True, True))


def test_runs_that_gathered_host_calls_are_replayed_with_the_same_answers():
    # The session's event loop takes the results of concurrent host calls only when it waits, and a replay
    # gives each wait the answer it got the first time: the tools are not called again.
    results = run_isolated(
        """
        import time
        calls = []
        def fetch(i):
            calls.append(i)
            time.sleep(0.01 * (5 - i))
            return i * 10
        interp = RustInterpreter(tools={"fetch": fetch})
        interp.execute("import asyncio\\nseen = await asyncio.gather(*(fetch(i) for i in range(3)))")
        interp.execute("more = [await fetch(i) for i in range(3, 5)]")
        before = len(calls)
        interp._session._inject_fault("abort")
        results["run"] = outcome(interp, "seen = 'lost'")
        results["after"] = outcome(interp, "seen, more")
        results["tool_calls"] = [before, len(calls)]
        interp.shutdown()
        """
    )
    assert "variables are as they were before this cell" in results["run"]["message"], results["run"]
    assert "differently" not in results["run"]["message"], results["run"]
    assert results["after"]["value"] == repr(([0, 10, 20], [30, 40]))
    assert results["tool_calls"] == [5, 5], "replayed runs do not call host tools again"


def test_a_replayed_run_that_ends_differently_is_reported():
    results = run_isolated(
        """
        interp = RustInterpreter()
        interp.execute("import time")
        interp.execute("stamp = time.time()\\nstamp")
        interp._session._inject_fault("abort")
        results["run"] = outcome(interp, "x = 1")
        interp.shutdown()
        """
    )
    assert "computed differently the second time" in results["run"]["message"], results["run"]


def test_a_replay_that_cannot_finish_costs_those_cells_not_the_session():
    # A replayed cell that reads the clock can take another path the second time: here, one that is abandoned
    # again. The session went with it before; now it goes back to its checkpoint and says what was lost.
    results = run_isolated(
        """
        interp = RustInterpreter(timeout=2.0, abandon_after=0.5)
        interp.execute("import time\\nT0 = time.time()\\nkept = 'before'")
        # A second of runs: the session forks its checkpoint now, holding T0.
        interp.execute("while time.time() - T0 < 1.1:\\n    pass")
        interp.execute("late = 'lost'")
        interp.execute("if time.time() - T0 > 3.0:\\n    y = 10 ** (10 ** 8)")  # not yet: a quick run
        time.sleep(2.5)
        # Abandoned: the rollback replays the two cells after the checkpoint, and the second now ignores its
        # stop in turn.
        results["failed"] = outcome(interp, "z = 10 ** (10 ** 8)")
        results["after"] = outcome(interp, "kept")
        results["late"] = outcome(interp, "late")
        results["alive"] = interp._session.alive
        interp.shutdown()
        """,
        timeout=120,
    )
    failed = results["failed"]
    assert failed["kind"] == "error" and failed["type"] == "TimeoutError", failed
    # The cell that replays cleanly is kept; only the one that replayed differently is lost.
    assert "the 1 cell(s) that ran before this one, which were lost" in failed["message"], failed
    assert "replaying them failed" in failed["message"], failed
    assert results["alive"] is True
    assert results["after"]["value"] == "'before'", results["after"]
    assert results["late"]["value"] == "'lost'", results["late"]


def test_a_rollback_replays_about_a_second_whatever_the_pattern_of_runs():
    # Runs that hit the time limit back to back leave no quiet moment for a checkpoint: twelve of them then an
    # abandoned cell took 7 s to roll back (6 s of them replayed). Now their checkpoint is forked at once.
    results = run_isolated(
        """
        interp = RustInterpreter(timeout=0.5, abandon_after=0.5)
        interp.execute("n = 0")
        for _ in range(12):
            outcome(interp, "n += 1\\nwhile True:\\n    pass")
        started = time.perf_counter()
        results["abandoned"] = outcome(interp, "x = 10 ** (10 ** 8)")
        results["seconds"] = time.perf_counter() - started
        results["n"] = outcome(interp, "n")
        interp.shutdown()
        """,
        timeout=120,
    )
    assert results["abandoned"]["type"] == "TimeoutError", results["abandoned"]
    assert results["n"]["value"] == "12"
    # The cell's own 0.5 s, its grace of 0.5 s, and at most about a second of replay.
    assert results["seconds"] < 4.0, results["seconds"]
