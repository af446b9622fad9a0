"""A session whose first cells replay differently is not lost. Before its first checkpoint a rollback replays
every cell into a new process from the zygote; a cell that took a quick path the first time and a slow native
one when replayed (it reads the clock) was abandoned again, and with no checkpoint to fall back to the session
was gone ("the session is lost: replaying them failed (it sent Abandoned)"). Now the session keeps what the
cells before it replayed, says which cells were lost, and goes on.

Every scenario runs in a child process (``run_child``), so a crash or hang is a failure of its own.
"""

from __future__ import annotations

from isolated import run_child

# A cell that is quick until a second after T0 (a moment the host writes into the cell's code just before it
# runs, so the replay sees the same T0), then a native operation that ignores the time limit.
CLOCK_CELL = "import time\nT0 = {t0!r}\nlost = 'yes'\nif time.time() - T0 > 1.0:\n    x = 10 ** (10 ** 8)"


def test_a_diverging_replay_before_the_first_checkpoint_keeps_the_cells_before_it():
    results = run_child(
        f"""
        interp = RustInterpreter(timeout=2.0, abandon_after=0.5)
        interp.execute("keep = 7")
        results["quick"] = outcome(interp, {CLOCK_CELL!r}.format(t0=time.time()))
        time.sleep(1.5)
        # Abandoned: no checkpoint yet (a second of quick runs is not there), so the rollback replays both cells
        # into a new process, and the clock cell now takes the slow path and is abandoned in turn.
        results["failed"] = outcome(interp, "10 ** (10 ** 8)")
        results["alive"] = interp._session.alive
        results["keep"] = outcome(interp, "keep")
        results["lost"] = outcome(interp, "lost")
        results["next"] = outcome(interp, "after = keep * 6\\nafter")
        # The journal holds what the process holds: a later rollback replays the cells kept, and only those.
        interp._session._inject_fault("abort")
        results["crash"] = outcome(interp, "after = -1")
        results["again"] = outcome(interp, "(keep, after)")
        interp.shutdown()
        """,
        timeout=120,
    )
    assert results["quick"]["kind"] == "value", results["quick"]
    failed = results["failed"]
    assert failed["kind"] == "error" and failed["type"] == "TimeoutError", failed
    assert "the session is lost" not in failed["message"], failed
    assert "the 1 cell(s) that ran before this one, which were lost" in failed["message"], failed
    assert "replaying them failed" in failed["message"], failed
    assert "ran differently the second time" in failed["message"], failed
    assert results["alive"] is True
    assert results["keep"]["value"] == "7", results["keep"]
    assert results["lost"]["kind"] == "error" and results["lost"]["type"] == "NameError", results["lost"]
    assert results["next"]["value"] == "42", results["next"]
    crash = results["crash"]
    assert crash["kind"] == "error" and "variables are as they were before this cell" in crash["message"], crash
    assert results["again"]["value"] == "(7, 42)", results["again"]


def test_a_first_cell_that_replays_differently_leaves_a_fresh_session_not_a_dead_one():
    results = run_child(
        f"""
        interp = RustInterpreter(timeout=2.0, abandon_after=0.5)
        interp.start()  # the session process is there before T0: the first run is quick
        results["quick"] = outcome(interp, "keep = 7\\n" + {CLOCK_CELL!r}.format(t0=time.time()))
        time.sleep(1.5)
        results["failed"] = outcome(interp, "10 ** (10 ** 8)")
        results["alive"] = interp._session.alive
        results["keep"] = outcome(interp, "keep")
        results["next"] = outcome(interp, "40 + 2")
        interp.shutdown()
        """,
        timeout=120,
    )
    assert results["quick"]["kind"] == "value", results["quick"]
    failed = results["failed"]
    assert failed["kind"] == "error" and failed["type"] == "TimeoutError", failed
    assert "started afresh" in failed["message"], failed
    assert "every variable, function and import of the cells that ran before this one was lost" in failed["message"]
    assert results["alive"] is True
    assert results["keep"]["kind"] == "error" and results["keep"]["type"] == "NameError", results["keep"]
    assert results["next"]["value"] == "42", results["next"]
