"""Output handling: expression values, captured print output, None when nothing is produced."""

from __future__ import annotations

from ._support import assert_value, printed_lines, printed_text


def test_expression_value_is_returned(interpreter):
    assert_value(interpreter.execute("40 + 2"), 42)


def test_last_expression_after_statements_is_returned(interpreter):
    assert_value(interpreter.execute("a = 40\nb = 2\na + b"), 42)


def test_print_output_is_returned_as_str(interpreter):
    assert isinstance(interpreter.execute("print('conformance-marker')"), str)


def test_print_output_contains_marker(interpreter):
    assert "conformance-marker" in interpreter.execute("print('conformance-marker')")


def test_print_output_is_exactly_the_printed_text(interpreter):
    assert printed_text(interpreter.execute("print('conformance-marker')")).strip() == "conformance-marker"


def test_multiple_prints_are_all_captured_in_order(interpreter):
    result = interpreter.execute("print('first')\nprint('second')\nprint('third')")
    assert printed_lines(result) == ["first", "second", "third"]


def test_prints_inside_a_loop_are_all_captured(interpreter):
    result = interpreter.execute("for i in range(3):\n    print('line', i)")
    assert printed_lines(result) == ["line 0", "line 1", "line 2"]


def test_print_with_unicode_is_captured_unchanged(interpreter):
    assert printed_text(interpreter.execute("print('héllo 世界 🎉')")).strip() == "héllo 世界 🎉"


def test_large_print_output_is_captured_whole(interpreter):
    assert printed_text(interpreter.execute("print('x' * 1_000_000)")).strip() == "x" * 1_000_000


def test_assignment_returns_none(interpreter):
    assert interpreter.execute("x = 1") is None


def test_definition_without_output_returns_none(interpreter):
    assert interpreter.execute("def f():\n    return 1") is None


def test_loop_without_output_returns_none(interpreter):
    assert interpreter.execute("total = 0\nfor i in range(10):\n    total += i") is None


def test_output_is_not_carried_over_to_the_next_call(interpreter):
    interpreter.execute("print('from-first-call')")
    assert interpreter.execute("x = 2") is None


def test_print_does_not_reach_host_stdout(interpreter, capfd):
    interpreter.execute("print('conformance-host-stdout-probe')")
    captured = capfd.readouterr()
    assert "conformance-host-stdout-probe" not in captured.out
    assert "conformance-host-stdout-probe" not in captured.err
