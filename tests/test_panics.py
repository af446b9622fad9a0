"""A Rust panic anywhere behind the interpreter never takes the process down: the caller gets
CodeInterpreterError, that session is dead, and the process and other interpreters carry on. Each fault is
injected deliberately (a test-only hook of the native handle), in a child process (see isolated.py)."""

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
