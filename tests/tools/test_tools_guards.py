"""Guards on tool calls: timeout, call budget, result size, slow-call warning (point 5)."""

import logging
import threading
import time

import pytest

from dspy_rust_interpreter import CodeExecutionError, RustInterpreter


def test_tool_timeout_raises_timeout_error_naming_tool(make_interp):
    release = threading.Event()
    interp = make_interp(tools={"stuck": lambda: release.wait(5)}, tool_timeout=0.1)
    started = time.perf_counter()
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("stuck()")
    release.set()
    assert time.perf_counter() - started < 3
    assert info.value.error_type == "TimeoutError"
    assert "tool 'stuck' failed with TimeoutError: no result within tool_timeout=0.1 s" in str(info.value)
    assert interp.stats()["tool_timeouts"] == 1
    assert interp.execute("1 + 1") == 2


def test_tool_timeout_keeps_context_and_results_for_fast_calls(make_interp):
    interp = make_interp(tools={"add": lambda a, b: a + b}, tool_timeout=5)
    assert interp.execute("add(2, 3)") == 5


def test_reentry_from_a_timed_tool_is_refused(make_interp):
    interp = make_interp(tool_timeout=5)
    interp.tools["again"] = lambda: interp.execute("1")
    with pytest.raises(CodeExecutionError, match="CodeInterpreterError"):
        interp.execute("again()")


def test_max_tool_calls_is_a_per_session_budget(make_interp):
    interp = make_interp(tools={"ping": lambda: "pong"}, max_tool_calls=3)
    assert interp.execute("[ping(), ping()]") == ["pong", "pong"]
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("ping()\nping()")
    assert info.value.error_type == "RuntimeError"
    assert "max_tool_calls=3" in str(info.value)
    assert interp.stats()["tool_budget_refusals"] == 1


def test_max_tool_result_bytes_rejects_large_results(make_interp):
    interp = make_interp(tools={"big": lambda n: "x" * n}, max_tool_result_bytes=1000)
    assert interp.execute("len(big(10))") == 10
    with pytest.raises(CodeExecutionError, match=r"larger than max_tool_result_bytes=1000"):
        interp.execute("big(5000)")
    assert interp.stats()["tool_results_too_large"] == 1


def test_max_tool_result_bytes_applies_to_nested_data(make_interp):
    interp = make_interp(tools={"rows": lambda: [{"t": "y" * 100}] * 50}, max_tool_result_bytes=1000)
    with pytest.raises(CodeExecutionError, match="max_tool_result_bytes"):
        interp.execute("rows()")


def test_slow_call_is_warned_about(make_interp, caplog):
    interp = make_interp(tools={"nap": lambda: time.sleep(0.06)}, slow_tool_seconds=0.05)
    with caplog.at_level(logging.WARNING, logger="dspy_rust_interpreter"):
        interp.execute("nap()")
    assert any("tool 'nap' was slow" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("option", "value"),
    [("tool_timeout", 0), ("tool_timeout", "1"), ("max_tool_calls", -1), ("max_tool_result_bytes", 1.5), ("slow_tool_seconds", None)],
)
def test_bad_guard_options_are_refused(option, value):
    with pytest.raises(ValueError, match=option):
        RustInterpreter(**{option: value})
