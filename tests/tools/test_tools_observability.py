"""Logging, stats() and dspy callbacks (point 6)."""

import logging

import dspy
import pytest
from dspy.utils.callback import BaseCallback

from dspy_rust_interpreter import CodeExecutionError, RustInterpreter


class Recorder(BaseCallback):
    def __init__(self):
        self.events = []

    def on_interpreter_execute_start(self, call_id, instance, inputs):
        self.events.append(("execute_start", inputs["code"]))

    def on_interpreter_execute_end(self, call_id, outputs, exception=None):
        self.events.append(("execute_end", outputs, type(exception).__name__ if exception else None))

    def on_interpreter_tool_call_start(self, call_id, instance, inputs):
        self.events.append(("tool_start", inputs["tool_name"], inputs["args"], inputs["kwargs"]))

    def on_interpreter_tool_call_end(self, call_id, outputs, exception=None):
        self.events.append(("tool_end", outputs))

    def on_interpreter_startup_start(self, call_id, instance, inputs):
        self.events.append(("start",))

    def on_interpreter_shutdown_start(self, call_id, instance, inputs):
        self.events.append(("shutdown",))


def test_instance_callbacks_see_start_execute_tool_calls_and_shutdown():
    recorder = Recorder()
    interp = RustInterpreter(tools={"add": lambda a, b: a + b}, callbacks=[recorder])
    interp.start()
    assert interp.execute("add(1, b=2)") == 3
    interp.shutdown()
    assert recorder.events == [
        ("start",),
        ("execute_start", "add(1, b=2)"),
        ("tool_start", "add", [], {"a": 1, "b": 2}),
        ("tool_end", 3),
        ("execute_end", 3, None),
        ("shutdown",),
    ]


def test_a_tool_call_is_reported_as_the_interpreters_own_invoke_tool():
    """Reported straight from the call (no detour through the interpreter's method), yet as dspy reports an
    interpreter's tool call: the instance is the interpreter, the call id nests under the execute's."""
    seen = []

    class Instances(BaseCallback):
        def on_interpreter_tool_call_start(self, call_id, instance, inputs):
            seen.append((instance, sorted(inputs)))

    interp = RustInterpreter(tools={"add": lambda a, b: a + b}, callbacks=[Instances()])
    try:
        assert interp.execute("add(1, 2) + call_tool('add', 3, b=4)") == 10
    finally:
        interp.shutdown()
    assert seen == [(interp, ["args", "kwargs", "tool_name"])] * 2


def test_global_dspy_callbacks_are_used_too(make_interp):
    recorder = Recorder()
    interp = make_interp()
    with dspy.context(callbacks=[recorder]):
        with pytest.raises(CodeExecutionError):
            interp.execute("1/0")
    assert recorder.events[-1] == ("execute_end", None, "CodeExecutionError")


def test_each_tool_call_is_logged_at_debug(make_interp, caplog):
    interp = make_interp(tools={"echo": lambda x: x})
    with caplog.at_level(logging.DEBUG, logger="dspy_rust_interpreter"):
        interp.execute("echo('hello')")
    messages = [r.getMessage() for r in caplog.records if r.name == "dspy_rust_interpreter"]
    assert any("tool 'echo'" in m and "arguments x," in m and m.endswith("ok") for m in messages)


def test_stats_count_executes_errors_tools_time_and_output(make_interp):
    def fail():
        raise ValueError("no")

    interp = make_interp(tools={"echo": lambda x: x, "fail": fail})
    interp.execute("print('abc')")
    interp.execute("echo(1); echo(2)")
    with pytest.raises(CodeExecutionError):
        interp.execute("fail()")
    with pytest.raises(SyntaxError):
        interp.execute("if")
    stats = interp.stats()
    assert stats["executes"] == 4 and stats["errors"] == 2
    assert stats["tool_calls"] == {"echo": 2, "fail": 1} and stats["tool_calls_total"] == 3
    assert stats["tool_errors"] == {"fail": 1}
    assert stats["output_chars"] >= 4
    assert stats["sandbox_seconds"] > 0 and stats["tool_seconds"] >= 0


def test_stats_count_limit_hits(make_interp):
    interp = make_interp(timeout=0.3)
    with pytest.raises(CodeExecutionError):
        interp.execute("while True:\n    pass")
    assert interp.stats()["timeouts"] == 1


def test_stats_is_a_snapshot(make_interp):
    interp = make_interp()
    snapshot = interp.stats()
    interp.execute("1")
    assert snapshot["executes"] == 0 and interp.stats()["executes"] == 1
