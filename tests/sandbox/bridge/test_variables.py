"""Injecting host values as sandbox globals: the accepted types, their exact round trip, and refusals."""

from __future__ import annotations

import dataclasses
import math

import pydantic
import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, RustInterpreter

# ---------------------------------------------------------------------------------------------------------
# accepted types round-trip exactly, with their types
# ---------------------------------------------------------------------------------------------------------

ROUND_TRIP_VALUES = [
    pytest.param(None, "NoneType", id="none"),
    pytest.param(True, "bool", id="true"),
    pytest.param(False, "bool", id="false"),
    pytest.param(0, "int", id="zero"),
    pytest.param(-7, "int", id="negative-int"),
    pytest.param(2**200, "int", id="big-int"),
    pytest.param(-(2**200), "int", id="big-negative-int"),
    pytest.param(2**63, "int", id="just-above-i64"),
    pytest.param(-(2**63) - 1, "int", id="just-below-i64"),
    pytest.param(1.5, "float", id="float"),
    pytest.param(float("inf"), "float", id="inf"),
    pytest.param(float("-inf"), "float", id="minus-inf"),
    pytest.param("héllo ✓ 日本語 🐍", "str", id="unicode-str"),
    pytest.param("", "str", id="empty-str"),
    pytest.param(b"\x00\xffbytes", "bytes", id="bytes"),
    pytest.param([1, "a", None, 2.5], "list", id="list"),
    pytest.param((1, (2, 3), "x"), "tuple", id="tuple"),
    pytest.param({(1, 2): "pair", 3: "int-key", "s": [1]}, "dict", id="dict-tuple-int-keys"),
    pytest.param({1, 2, "three"}, "set", id="set"),
    pytest.param(frozenset({1, "x"}), "frozenset", id="frozenset"),
]


@pytest.mark.parametrize(("value", "type_name"), ROUND_TRIP_VALUES)
def test_value_round_trips_with_same_type(interp, value, type_name):
    result = interp.execute("x", variables={"x": value})
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(("value", "type_name"), ROUND_TRIP_VALUES)
def test_value_has_matching_type_inside_sandbox(interp, value, type_name):
    assert interp.execute("type(x).__name__", variables={"x": value}) == type_name


def test_nan_round_trips_as_nan(interp):
    result = interp.execute("x", variables={"x": float("nan")})
    assert isinstance(result, float)
    assert math.isnan(result)


def test_nan_is_nan_inside_sandbox(interp):
    assert interp.execute("x != x", variables={"x": float("nan")}) is True


def test_big_int_arithmetic_inside_sandbox_is_exact(interp):
    assert interp.execute("x * 3 + 1", variables={"x": -(2**200)}) == -(2**200) * 3 + 1


def test_bool_stays_bool_not_int(interp):
    result = interp.execute("[x, type(x) is bool]", variables={"x": True})
    assert result == [True, True]
    assert type(result[0]) is bool


def test_tuple_nested_in_list_stays_tuple(interp):
    result = interp.execute("x", variables={"x": [(1, 2), [3, (4,)]]})
    assert result == [(1, 2), [3, (4,)]]
    assert type(result[0]) is tuple
    assert type(result[1][1]) is tuple


def test_dict_with_tuple_key_is_indexable_inside_sandbox(interp):
    assert interp.execute("x[(1, 2)] + x[3]", variables={"x": {(1, 2): "a", 3: "b"}}) == "ab"


def test_bytes_are_bytes_inside_sandbox(interp):
    assert interp.execute("list(x)", variables={"x": b"\x00\xff"}) == [0, 255]


def _nested_list(depth: int) -> list:
    root: list = []
    current = root
    for _ in range(depth - 1):
        child: list = []
        current.append(child)
        current = child
    return root


def test_deeply_nested_value_round_trips(interp):
    value = _nested_list(100)
    assert interp.execute("x", variables={"x": value}) == value


def test_deeply_nested_value_has_full_depth_inside_sandbox(interp):
    code = "depth = 0\nnode = x\nwhile isinstance(node, list):\n    depth += 1\n    node = node[0] if node else None\ndepth"
    assert interp.execute(code, variables={"x": _nested_list(100)}) == 100


def test_injected_value_is_a_copy_of_the_host_value(interp):
    host_list = [1, 2]
    interp.execute("data.append(3)", variables={"data": host_list})
    assert host_list == [1, 2]
    assert interp.execute("data") == [1, 2, 3]


# ---------------------------------------------------------------------------------------------------------
# pydantic models and dataclasses arrive as dicts
# ---------------------------------------------------------------------------------------------------------


class Item(pydantic.BaseModel):
    name: str
    qty: int


class Order(pydantic.BaseModel):
    id: int
    items: list[Item]


@dataclasses.dataclass
class Point:
    x: int
    y: float


@dataclasses.dataclass
class Segment:
    start: Point
    end: Point


def test_pydantic_model_arrives_as_dict(interp):
    result = interp.execute("[type(m).__name__, m]", variables={"m": Item(name="pen", qty=2)})
    assert result == ["dict", {"name": "pen", "qty": 2}]


def test_nested_pydantic_model_arrives_as_nested_dicts(interp):
    order = Order(id=7, items=[Item(name="a", qty=1), Item(name="b", qty=3)])
    assert interp.execute("sum(i['qty'] for i in o['items'])", variables={"o": order}) == 4
    assert interp.execute("o") == {"id": 7, "items": [{"name": "a", "qty": 1}, {"name": "b", "qty": 3}]}


def test_dataclass_instance_arrives_as_dict(interp):
    result = interp.execute("[type(p).__name__, p]", variables={"p": Point(1, 2.5)})
    assert result == ["dict", {"x": 1, "y": 2.5}]


def test_nested_dataclass_arrives_as_nested_dicts(interp):
    segment = Segment(Point(0, 0.0), Point(3, 4.0))
    assert interp.execute("s['end']['x']", variables={"s": segment}) == 3


def test_models_and_dataclasses_in_a_list_arrive_as_dicts(interp):
    value = [Item(name="pen", qty=2), Point(1, 2.0)]
    result = interp.execute("[type(v).__name__ for v in xs], xs", variables={"xs": value})
    assert result == (["dict", "dict"], [{"name": "pen", "qty": 2}, {"x": 1, "y": 2.0}])


def test_dataclass_class_itself_is_refused(interp):
    with pytest.raises(TypeError, match="'type'"):
        interp.execute("1", variables={"cls": Point})


# ---------------------------------------------------------------------------------------------------------
# unsupported values: TypeError naming variable, path and type; nothing injected
# ---------------------------------------------------------------------------------------------------------


def test_unsupported_object_raises_type_error_naming_variable_path_and_type(interp):
    with pytest.raises(TypeError) as info:
        interp.execute("1", variables={"data": {"items": [1, object()]}})
    message = str(info.value)
    assert "variable 'data'" in message
    assert "data['items'][1]" in message
    assert "'object'" in message


def test_lambda_variable_raises_type_error_naming_function_type(interp):
    with pytest.raises(TypeError) as info:
        interp.execute("1", variables={"fn": lambda: 1})
    message = str(info.value)
    assert "variable 'fn'" in message
    assert "'function'" in message


def test_unsupported_value_error_is_not_a_code_execution_error(interp):
    with pytest.raises(TypeError) as info:
        interp.execute("1", variables={"bad": object()})
    assert not isinstance(info.value, CodeExecutionError)


def test_unsupported_variable_injects_nothing(interp):
    with pytest.raises(TypeError):
        interp.execute("1", variables={"a": 1, "b": object()})
    assert interp.execute("'a' in globals(), 'b' in globals()") == (False, False)


def test_unsupported_variable_keeps_older_values(interp):
    interp.execute("a = 'old'")
    with pytest.raises(TypeError):
        interp.execute("a = 'code ran'", variables={"a": "new", "b": object()})
    assert interp.execute("a") == "old"


def test_unsupported_variable_does_not_run_the_code(interp):
    with pytest.raises(TypeError):
        interp.execute("ran = True", variables={"b": object()})
    assert interp.execute("'ran' in globals()") is False


def test_self_referencing_list_raises_type_error_mentioning_nesting(interp):
    loop: list = [1]
    loop.append(loop)
    with pytest.raises(TypeError, match="nested") as info:
        interp.execute("1", variables={"loop": loop})
    assert "variable 'loop'" in str(info.value)


def test_self_referencing_dict_raises_type_error_mentioning_nesting(interp):
    loop: dict = {}
    loop["me"] = loop
    with pytest.raises(TypeError, match="nested"):
        interp.execute("1", variables={"loop": loop})


def test_session_works_after_refused_variable(interp):
    with pytest.raises(TypeError):
        interp.execute("1", variables={"bad": object()})
    assert interp.execute("x + 1", variables={"x": 41}) == 42


# ---------------------------------------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["not valid", "class", "1x", "", "a-b", "None", "lambda"])
def test_invalid_variable_name_raises_value_error(interp, name):
    # dspy's wording and type (CodeInterpreterError), and a ValueError.
    with pytest.raises(
        CodeInterpreterError, match="Invalid variable name: .* (not a valid Python identifier|is a Python keyword)"
    ) as info:
        interp.execute("1", variables={name: 1})
    assert isinstance(info.value, ValueError)


def test_non_string_variable_name_raises_value_error(interp):
    with pytest.raises(ValueError):
        interp.execute("1", variables={1: "x"})


@pytest.mark.parametrize("name", ["SUBMIT", "FINAL", "FINAL_VAR", "call_tool", "print"])
def test_reserved_variable_name_raises_value_error(interp, name):
    with pytest.raises(ValueError, match="reserved"):
        interp.execute("1", variables={name: 1})


@pytest.mark.parametrize("name", ["SUBMIT", "FINAL", "FINAL_VAR", "call_tool"])
def test_reserved_variable_name_leaves_the_sandbox_function_in_place(interp, name):
    with pytest.raises(ValueError):
        interp.execute("1", variables={name: 1})
    assert interp.execute(f"callable({name})") is True


def test_invalid_name_among_valid_ones_injects_nothing(interp):
    with pytest.raises(ValueError):
        interp.execute("1", variables={"good": 1, "class": 2})
    assert interp.execute("'good' in globals()") is False


def test_variable_named_like_a_tool_raises_value_error(make_interp):
    interp = make_interp(tools={"search": lambda query: query})
    with pytest.raises(ValueError, match="search"):
        interp.execute("1", variables={"search": "text"})
    assert interp.execute("search('q')") == "q"


def test_variable_named_like_a_tool_added_later_raises_value_error(interp):
    interp.execute("1")
    interp.tools["lookup"] = lambda key: key
    with pytest.raises(ValueError, match="lookup"):
        interp.execute("1", variables={"lookup": 1})


# ---------------------------------------------------------------------------------------------------------
# injected names are ordinary globals
# ---------------------------------------------------------------------------------------------------------


def test_injected_variable_can_be_overwritten_by_code(interp):
    assert interp.execute("x = x + 41\nx", variables={"x": 1}) == 42
    assert interp.execute("x") == 42


def test_injected_variable_can_be_deleted_by_code(interp):
    interp.execute("del x", variables={"x": 1})
    assert interp.execute("'x' in globals()") is False


def test_injected_variable_is_visible_in_functions_as_global(interp):
    interp.execute("def show():\n    return x * 2")
    assert interp.execute("show()", variables={"x": 21}) == 42


def test_injected_variable_can_be_rebound_with_global_statement(interp):
    interp.execute("def bump():\n    global x\n    x += 1", variables={"x": 1})
    interp.execute("bump()\nbump()")
    assert interp.execute("x") == 3


def test_reinjection_replaces_code_assigned_value(interp):
    interp.execute("x = 'from code'")
    assert interp.execute("x", variables={"x": "from host"}) == "from host"


def test_variables_are_not_shared_between_instances(interp):
    other = RustInterpreter()
    try:
        other.execute("1", variables={"secret": 1})
        assert interp.execute("'secret' in globals()") is False
    finally:
        other.shutdown()


def test_refused_variable_on_first_execute_does_not_lose_the_tools(make_interp):
    interp = make_interp(tools={"ping": lambda: "pong"})
    with pytest.raises(TypeError):
        interp.execute("1", variables={"bad": object()})
    assert interp.execute("ping()") == "pong"


# ---------------------------------------------------------------------------------------------------------
# re-injecting the same large value (what RLM does on every iteration) reuses the sandbox copy
# ---------------------------------------------------------------------------------------------------------

LARGE_TEXT = "line of a long document ✓\n" * 2000  # ~52 KB: past the size worth remembering


def test_same_large_str_injected_again_is_the_same_sandbox_object(interp):
    first = interp.execute("id(doc)", variables={"doc": LARGE_TEXT})
    again = interp.execute("id(doc)", variables={"doc": LARGE_TEXT})
    assert first == again


def test_equal_but_different_large_str_gets_its_own_copy(interp):
    first = interp.execute("id(doc)", variables={"doc": LARGE_TEXT})
    other = "".join(list(LARGE_TEXT))  # equal, not the same object
    assert other is not LARGE_TEXT
    assert interp.execute("id(doc), doc == previous", variables={"doc": other, "previous": LARGE_TEXT})[0] != first


def test_reused_large_value_is_rebound_after_code_replaced_it(interp):
    interp.execute("len(doc)", variables={"doc": LARGE_TEXT})
    interp.execute("doc = doc.upper()[:10]")
    assert interp.execute("doc == expected and len(doc)", variables={"doc": LARGE_TEXT, "expected": LARGE_TEXT}) == len(
        LARGE_TEXT
    )


def test_same_large_value_under_another_name_is_correct(interp):
    data = b"\x00\x01binary" * 1000
    interp.execute("len(a)", variables={"a": data})
    assert interp.execute("b == bytes(a) and len(b)", variables={"b": data}) == len(data)


def test_large_value_injected_again_after_a_gap_is_still_exact(interp):
    interp.execute("id(doc)", variables={"doc": LARGE_TEXT})
    interp.execute("0", variables={"other": "x" * 10_000})
    # No longer remembered: a fresh copy, still the same text.
    assert interp.execute("doc == expected", variables={"doc": LARGE_TEXT, "expected": LARGE_TEXT}) is True


# ---------------------------------------------------------------------------------------------------------
# large str/bytes cross in the frame's own pages: exact at every size and shape, counted against the
# session's memory and given back when freed
# ---------------------------------------------------------------------------------------------------------

DIGEST = "import zlib\n(type(v).__name__, len(v), zlib.crc32(v if isinstance(v, bytes) else v.encode()))"


def _digest(value):
    import zlib

    data = value if isinstance(value, bytes) else value.encode()
    return (type(value).__name__, len(value), zlib.crc32(data))


LARGE_VALUES = [
    pytest.param("a" * (64 * 1024 - 1), id="str-just-under-the-page-path"),
    pytest.param("a" * (64 * 1024), id="str-at-the-page-path"),
    pytest.param("b" * (3 * 1024 * 1024 + 17), id="ascii-str-3mb"),
    pytest.param("é✓🐍x" * 300_000, id="non-ascii-str"),
    pytest.param(bytes(range(256)) * 12_000, id="bytes"),
]


@pytest.mark.parametrize("value", LARGE_VALUES)
def test_large_value_arrives_exact(interp, value):
    assert interp.execute(DIGEST, variables={"v": value}) == _digest(value)


@pytest.mark.parametrize("value", LARGE_VALUES)
def test_large_value_from_a_tool_arrives_exact(make_interp, value):
    interp = make_interp(tools={"fetch": lambda: value})
    assert interp.execute(DIGEST.replace("(type(v)", "v = fetch()\n(type(v)")) == _digest(value)


def test_several_large_values_in_one_container_arrive_exact(interp):
    parts = ["x" * 100_000, "small", "ü" * 200_000, b"\x00" * 300_000, "y" * 70_000]
    code = "import zlib\n[(type(p).__name__, len(p), zlib.crc32(p if isinstance(p, bytes) else p.encode())) for p in v]"
    assert interp.execute(code, variables={"v": parts}) == [_digest(p) for p in parts]


def test_a_large_value_can_be_changed_and_extended_in_the_sandbox(interp):
    doc = "z" * (2 * 1024 * 1024)
    code = "b = bytearray(doc.encode())\nb[0] = 65\nd = doc + '!'\n(bytes(b[:2]), d[-2:], doc[:2], len(d))"
    assert interp.execute(code, variables={"doc": doc}) == (b"Az", "z!", "zz", len(doc) + 1)


def test_large_values_count_against_the_memory_limit_and_come_back_when_freed(make_interp):
    mb = 1024 * 1024
    interp = make_interp(memory_limit=160 * mb)
    # Counted: 100 MB injected plus 100 MB allocated is past the limit.
    with pytest.raises(CodeExecutionError, match="MemoryError"):
        interp.execute("x = bytearray(100 * 1024 * 1024)", variables={"doc": "q" * (100 * mb)})
    # Given back: eight different 40 MB values, each dropped after use (320 MB in all), and then 100 MB
    # more fits under the limit.
    for i in range(8):
        doc = str(i) * (40 * mb)
        assert interp.execute("del doc", variables={"doc": doc}) is None
    assert interp.execute("len(bytearray(100 * 1024 * 1024))") == 100 * mb
