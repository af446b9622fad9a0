"""Execution and session state: persistence across calls, per-instance isolation, unicode source."""

from __future__ import annotations

import sys

import pytest
from dspy.primitives.code_interpreter import CodeInterpreterError

from ._support import assert_value, printed_text


def test_execute_runs_python_statements(interpreter):
    interpreter.execute("values = [n * n for n in range(5)]")
    assert_value(interpreter.execute("sum(values)"), 30)


def test_variable_persists_across_execute_calls(interpreter):
    interpreter.execute("x = 10")
    assert_value(interpreter.execute("x + 5"), 15)


def test_printed_value_of_persisted_variable(interpreter):
    interpreter.execute("x = 10")
    assert printed_text(interpreter.execute("print(x + 5)")).strip() == "15"


def test_function_definition_persists_across_execute_calls(interpreter):
    interpreter.execute("def double(n):\n    return n * 2")
    assert_value(interpreter.execute("double(21)"), 42)


def test_class_definition_persists_across_execute_calls(interpreter):
    interpreter.execute("class Box:\n    def __init__(self, v):\n        self.v = v")
    interpreter.execute("box = Box(41)")
    assert_value(interpreter.execute("box.v + 1"), 42)


def test_mutation_of_persisted_object_persists(interpreter):
    interpreter.execute("items = []")
    interpreter.execute("items.append('a')")
    interpreter.execute("items.append('b')")
    assert_value(interpreter.execute("len(items)"), 2)


def test_rebinding_a_variable_replaces_its_value(interpreter):
    interpreter.execute("x = 1")
    interpreter.execute("x = x + 41")
    assert_value(interpreter.execute("x"), 42)


def test_two_instances_do_not_share_a_namespace(make_interpreter):
    first, second = make_interpreter(), make_interpreter()
    first.execute("only_in_first = 1")
    with pytest.raises(CodeInterpreterError):
        second.execute("only_in_first")


def test_two_instances_keep_independent_values(make_interpreter):
    first, second = make_interpreter(), make_interpreter()
    first.execute("shared_name = 'first'")
    second.execute("shared_name = 'second'")
    assert printed_text(first.execute("print(shared_name)")).strip() == "first"
    assert printed_text(second.execute("print(shared_name)")).strip() == "second"


def test_new_instance_starts_with_a_clean_namespace(make_interpreter):
    old = make_interpreter()
    old.execute("leftover = 1")
    old.shutdown()
    fresh = make_interpreter()
    with pytest.raises(CodeInterpreterError):
        fresh.execute("leftover")


def test_state_survives_a_runtime_error(interpreter):
    interpreter.execute("x = 5")
    with pytest.raises(CodeInterpreterError):
        interpreter.execute("1 / 0")
    assert_value(interpreter.execute("x"), 5)


def test_state_survives_a_syntax_error(interpreter):
    interpreter.execute("x = 5")
    with pytest.raises(SyntaxError):
        interpreter.execute("if")
    assert_value(interpreter.execute("x"), 5)


def test_unicode_string_literal_in_code(interpreter):
    interpreter.execute('s = "héllo wörld ✓ 世界 🎉"')
    assert printed_text(interpreter.execute("print(s)")).strip() == "héllo wörld ✓ 世界 🎉"


def test_unicode_length_counts_code_points(interpreter):
    assert_value(interpreter.execute('len("世界🎉é")'), 4)


def test_unicode_identifier_in_code(interpreter):
    interpreter.execute("größe = 42")
    assert_value(interpreter.execute("größe"), 42)


def test_executed_code_does_not_touch_host_sys_modules(interpreter):
    code = "try:\n    import sys\n    sys.modules['dspy_conformance_probe'] = 'from-sandbox'\nexcept BaseException:\n    pass\n"
    interpreter.execute(code)
    assert "dspy_conformance_probe" not in sys.modules
