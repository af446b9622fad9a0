"""A Rust panic anywhere behind the interpreter never takes the process down: the caller gets
CodeInterpreterError, that session is dead, and the process and other interpreters carry on. Nor does a fatal
signal on a session's VM thread (a native stack overflow, an abort). Each fault is injected deliberately (a
test-only hook of the native handle), in a child process (see isolated.py)."""

from __future__ import annotations

import pytest

from isolated import run_isolated


@pytest.mark.parametrize("place", ["vm", "tool", "handle"])
def test_a_panic_kills_only_its_session(place):
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


@pytest.mark.parametrize(("fault", "says"), [("stack_overflow", "native stack"), ("abort", "abort")])
def test_a_fatal_signal_on_the_vm_thread_kills_only_its_session(fault, says):
    results = run_isolated(
        f"""
        import resource
        bystander = RustInterpreter()
        bystander.execute("kept = 'bystander'")
        interp = RustInterpreter(timeout=30.0)
        interp.execute("x = 1")
        interp._session._inject_fault({fault!r})
        results["run"] = outcome(interp, "x")
        results["again"] = outcome(interp, "x")
        started = time.perf_counter()
        interp.shutdown()
        results["shutdown_seconds"] = time.perf_counter() - started
        results["bystander"] = outcome(bystander, "kept")
        results["new"] = outcome(RustInterpreter(), "40 + 2")
        """
    )
    assert results["run"]["kind"] == "dead", results["run"]
    assert says in results["run"]["message"] and "host process is unaffected" in results["run"]["message"]
    assert results["run"]["seconds"] < 5.0, "reported at the next tick, not at the time limit"
    assert results["again"]["kind"] == "dead"
    assert results["shutdown_seconds"] < 1.0, "the parked thread is not waited for"
    assert results["bystander"]["value"] == "'bystander'"
    assert results["new"]["value"] == "42"
