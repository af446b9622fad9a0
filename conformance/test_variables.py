"""Variable injection through execute(code, variables=...)."""

from __future__ import annotations

import pytest
from dspy.primitives.code_interpreter import CodeInterpreterError

from ._support import assert_value, printed_text

NESTED = {"a": {"b": [1, {"c": None}, [True, False]], "d": "x"}, "e": [], "f": {}}
UNICODE_TEXT = "naïve café — 東京 🚀 Ωmega"


def test_injected_string_is_available(interpreter):
    result = interpreter.execute("print(context[:5])", variables={"context": "hello world"})
    assert printed_text(result).strip() == "hello"


def test_injected_int_is_available(interpreter):
    assert_value(interpreter.execute("n * 2", variables={"n": 21}), 42)


def test_injected_float_is_available(interpreter):
    assert_value(interpreter.execute("ratio * 4", variables={"ratio": 0.5}), 2.0)


def test_injected_none_is_none(interpreter):
    assert_value(interpreter.execute("nothing is None", variables={"nothing": None}), True)


def test_injected_true_is_true(interpreter):
    assert_value(interpreter.execute("flag is True", variables={"flag": True}), True)


def test_injected_false_is_false(interpreter):
    assert_value(interpreter.execute("flag is False", variables={"flag": False}), True)


def test_injected_bool_is_not_an_int_value(interpreter):
    assert_value(interpreter.execute("type(flag).__name__ == 'bool'", variables={"flag": True}), True)


def test_injected_nested_structure_round_trips_exactly(interpreter):
    code = f"data == {NESTED!r}"
    assert_value(interpreter.execute(code, variables={"data": NESTED}), True)


def test_injected_nested_structure_is_indexable(interpreter):
    code = "data['a']['b'][1]['c'] is None and data['a']['b'][2][0] is True and data['a']['b'][0] == 1"
    assert_value(interpreter.execute(code, variables={"data": NESTED}), True)


def test_injected_unicode_string_round_trips_exactly(interpreter):
    code = f"text == {UNICODE_TEXT!r} and len(text) == {len(UNICODE_TEXT)}"
    assert_value(interpreter.execute(code, variables={"text": UNICODE_TEXT}), True)


def test_injected_unicode_string_prints_unchanged(interpreter):
    result = interpreter.execute("print(text)", variables={"text": UNICODE_TEXT})
    assert printed_text(result).strip() == UNICODE_TEXT


def test_injected_dict_with_unicode_keys(interpreter):
    variables = {"mapping": {"ключ": "значение", "鍵": 1}}
    code = "mapping['ключ'] == 'значение' and mapping['鍵'] == 1"
    assert_value(interpreter.execute(code, variables=variables), True)


def test_injected_ten_thousand_element_list(interpreter):
    variables = {"big": list(range(10_000))}
    assert_value(interpreter.execute("len(big)", variables=variables), 10_000)
    assert_value(interpreter.execute("sum(big)"), 49_995_000)
    assert_value(interpreter.execute("big[-1]"), 9_999)


def test_several_variables_injected_at_once(interpreter):
    variables = {"a": 40, "b": 2, "label": "sum"}
    result = interpreter.execute("print(label, a + b)", variables=variables)
    assert printed_text(result).strip() == "sum 42"


def test_injected_variable_persists_into_later_calls(interpreter):
    interpreter.execute("pass", variables={"carried": 41})
    assert_value(interpreter.execute("carried + 1"), 42)


def test_reinjection_replaces_the_previous_value(interpreter):
    interpreter.execute("pass", variables={"x": 1})
    assert_value(interpreter.execute("x", variables={"x": 2}), 2)


def test_code_can_rebind_an_injected_variable(interpreter):
    interpreter.execute("counter += 1", variables={"counter": 1})
    assert_value(interpreter.execute("counter"), 2)


def test_injected_variable_does_not_leak_to_other_instance(make_interpreter):
    first, second = make_interpreter(), make_interpreter()
    first.execute("pass", variables={"private": 1})
    with pytest.raises(CodeInterpreterError):
        second.execute("private")


def test_variables_none_is_accepted(interpreter):
    assert_value(interpreter.execute("40 + 2", variables=None), 42)


def test_variables_empty_dict_is_accepted(interpreter):
    assert_value(interpreter.execute("40 + 2", variables={}), 42)


def test_large_document_reinjected_on_every_call(interpreter):
    document = ("lorem ipsum dolor sit amet " * 80_000)[:2_000_000]
    for _ in range(3):
        assert_value(interpreter.execute("len(document)", variables={"document": document}), 2_000_000)
