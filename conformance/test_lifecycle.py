"""Lifecycle: protocol membership, construction, start/execute/shutdown, context manager, class attributes."""

from __future__ import annotations

import os

import dspy
import pytest
from dspy.primitives.code_interpreter import CodeInterpreterError

from ._support import assert_value


def test_instance_is_a_dspy_code_interpreter(interpreter):
    assert isinstance(interpreter, dspy.CodeInterpreter)


def test_class_is_constructible_with_no_arguments(interpreter_cls, make_interpreter):
    instance = make_interpreter.track(interpreter_cls())
    assert type(instance) is interpreter_cls


def test_type_of_instance_called_with_no_arguments_gives_working_instance(interpreter, make_interpreter):
    clone = make_interpreter.track(type(interpreter)())
    assert type(clone) is type(interpreter)
    assert_value(clone.execute("40 + 2"), 42)


def test_execution_instructions_is_non_empty_string_on_class(interpreter_cls):
    instructions = getattr(interpreter_cls, "execution_instructions", None)
    assert isinstance(instructions, str)
    assert instructions.strip() != ""


def test_execution_instructions_is_the_same_on_instance_and_class(interpreter_cls, interpreter):
    assert interpreter.execution_instructions == interpreter_cls.execution_instructions


def test_start_returns_none(interpreter):
    assert interpreter.start() is None


def test_execute_works_after_explicit_start(interpreter):
    interpreter.start()
    assert_value(interpreter.execute("40 + 2"), 42)


def test_start_is_idempotent(interpreter):
    interpreter.start()
    interpreter.start()
    interpreter.start()
    assert_value(interpreter.execute("40 + 2"), 42)


def test_start_again_keeps_session_state(interpreter):
    interpreter.start()
    interpreter.execute("kept = 7")
    interpreter.start()
    assert_value(interpreter.execute("kept"), 7)


def test_execute_starts_lazily_without_start(interpreter):
    assert_value(interpreter.execute("40 + 2"), 42)


def test_start_after_lazy_start_keeps_session_state(interpreter):
    interpreter.execute("kept = 8")
    interpreter.start()
    assert_value(interpreter.execute("kept"), 8)


def test_shutdown_returns_none(interpreter):
    interpreter.execute("x = 1")
    assert interpreter.shutdown() is None


def test_shutdown_is_idempotent(interpreter):
    interpreter.execute("x = 1")
    interpreter.shutdown()
    interpreter.shutdown()
    interpreter.shutdown()


def test_shutdown_before_start_is_allowed(interpreter):
    interpreter.shutdown()
    interpreter.shutdown()


def test_start_after_shutdown_raises_code_interpreter_error(interpreter):
    interpreter.start()
    interpreter.shutdown()
    with pytest.raises(CodeInterpreterError):
        interpreter.start()


def test_execute_after_shutdown_raises_code_interpreter_error(interpreter):
    interpreter.execute("x = 1")
    interpreter.shutdown()
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("40 + 2")


def test_execute_after_shutdown_without_ever_starting_raises_code_interpreter_error(interpreter):
    interpreter.shutdown()
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("40 + 2")


def test_shutdown_stays_terminal_after_failed_restart(interpreter):
    interpreter.shutdown()
    with pytest.raises(CodeInterpreterError):
        interpreter.start()
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("40 + 2")


def test_context_manager_enter_returns_the_instance(make_interpreter):
    instance = make_interpreter()
    with instance as entered:
        assert entered is instance


def test_context_manager_block_can_execute(make_interpreter):
    with make_interpreter() as instance:
        assert_value(instance.execute("40 + 2"), 42)


def test_context_manager_exit_shuts_down(make_interpreter):
    with make_interpreter() as instance:
        instance.execute("x = 1")
    with pytest.raises(CodeInterpreterError):
        instance.execute("40 + 2")


def test_context_manager_does_not_swallow_exceptions(make_interpreter):
    class Marker(Exception):
        pass

    with pytest.raises(Marker):
        with make_interpreter():
            raise Marker()


def _child_pids() -> set[int]:
    me = os.getpid()
    children = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        # Fields after the parenthesised command name: state, ppid, ...
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[1]) == me:
            children.add(int(entry))
    return children


def test_shutdown_leaves_no_child_processes_behind(make_interpreter):
    if not os.path.isdir("/proc"):
        pytest.skip("process accounting needs /proc (Linux)")
    before = _child_pids()
    instance = make_interpreter()
    instance.execute("x = 1")
    instance.shutdown()
    assert _child_pids() - before == set()
