"""Host values beyond plain data, as they enter the sandbox from a variable, a tool result or a streamed item:
each as its natural sandbox equivalent (dspy's interpreter's conversions, and real `datetime` objects), and
anything else as its str() with a warning, or refused with strict_values=True."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import math
import pathlib
import threading
import uuid
from collections import namedtuple
from typing import NamedTuple

import pydantic
import pytest

from dspy_rust_interpreter import CodeExecutionError


class Point(NamedTuple):
    x: float
    label: str


Pair = namedtuple("Pair", "a b")


class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Hit(pydantic.BaseModel):
    id: int
    at: datetime.datetime


@dataclasses.dataclass
class Box:
    size: decimal.Decimal
    tags: tuple[str, ...]


UTC_MINUS_5 = datetime.timezone(datetime.timedelta(hours=-5, microseconds=7))

# (host value, sandbox expression over `v`, its value in the sandbox as the host gets it back)
CASES = [
    (Point(1.5, "a"), "v", {"x": 1.5, "label": "a"}),
    (Pair(1, 2), "v['a'] + v['b']", 3),
    (Color.RED, "v", "red"),
    (Level.HIGH, "(type(v).__name__, v)", ("int", 3)),
    (pathlib.PurePosixPath("/data/a.txt"), "v", "/data/a.txt"),
    (math.nan, "(type(v).__name__, v != v)", ("float", True)),
    (-math.inf, "v", -math.inf),
    (
        datetime.date(2024, 2, 29),
        "(type(v).__name__, v.isoformat(), (v + datetime.timedelta(days=1)).month)",
        ("date", "2024-02-29", 3),
    ),
    (datetime.time(1, 2, 3, 4), "(type(v).__name__, v.isoformat())", ("time", "01:02:03.000004")),
    (
        datetime.datetime(2020, 1, 2, 3, 4, 5, 6),
        "(type(v).__name__, v.isoformat(), v.tzinfo)",
        ("datetime", "2020-01-02T03:04:05.000006", None),
    ),
    (datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), "v.isoformat()", "2020-01-02T03:04:05+00:00"),
    (
        datetime.datetime(2021, 6, 1, 12, tzinfo=UTC_MINUS_5),
        "(v.utcoffset().total_seconds(), v.timestamp())",
        (UTC_MINUS_5.utcoffset(None).total_seconds(), datetime.datetime(2021, 6, 1, 12, tzinfo=UTC_MINUS_5).timestamp()),
    ),
    (datetime.datetime(2021, 11, 7, 1, 30, fold=1), "v.fold", 1),
    (
        datetime.timedelta(days=-1, seconds=5, microseconds=6),
        "(type(v).__name__, v.total_seconds())",
        ("timedelta", -86394.999994),
    ),
    (decimal.Decimal("-1.10"), "(type(v).__name__, str(v), v * 2)", ("Decimal", "-1.10", None)),
    (decimal.Decimal("NaN"), "v.is_nan()", True),
    (uuid.UUID(int=12345), "(type(v).__name__, v.int, str(v))", ("UUID", 12345, str(uuid.UUID(int=12345)))),
    (Hit(id=1, at=datetime.datetime(2024, 5, 6, 7, 8)), "(v['id'], type(v['at']).__name__, v['at'].year)", (1, "datetime", 2024)),
    (Box(decimal.Decimal("2.5"), ("a",)), "(str(v['size']), v['tags'])", ("2.5", ("a",))),
    (
        {"when": [datetime.date(2000, 1, 1)], "ids": {uuid.UUID(int=1)}},
        "(v['when'][0].year, next(iter(v['ids'])).int)",
        (2000, 1),
    ),
]
IDS = [type(case[0]).__name__ + f"-{i}" for i, case in enumerate(CASES)]


@pytest.mark.parametrize(("value", "expression", "expected"), CASES, ids=IDS)
def test_a_variable_enters_as_its_sandbox_equivalent(make_interp, value, expression, expected):
    interp = make_interp()
    expression = expression.replace("v * 2", "str(v * 2)")
    result = interp.execute(f"import datetime\n{expression}", variables={"v": value})
    _check(result, expected, value)


@pytest.mark.parametrize(("value", "expression", "expected"), CASES, ids=IDS)
def test_a_tool_result_enters_as_its_sandbox_equivalent(make_interp, value, expression, expected):
    interp = make_interp(tools={"get": lambda: value})
    expression = expression.replace("v * 2", "str(v * 2)")
    result = interp.execute(f"import datetime\nv = get()\n{expression}")
    _check(result, expected, value)


def _check(result, expected, value):
    if isinstance(value, decimal.Decimal) and isinstance(expected, tuple):
        assert result == (expected[0], expected[1], str(value * 2))
    elif isinstance(expected, float) and math.isinf(expected):
        assert result == expected
    else:
        assert result == expected


def test_a_streamed_item_enters_as_its_sandbox_equivalent(make_interp):
    interp = make_interp(tools={"rows": lambda: iter([datetime.date(2001, 2, 3), Point(0.5, "p")])})
    assert interp.execute("[type(r).__name__ for r in rows()]") == ["date", "dict"]


def test_extreme_dates_and_durations_arrive_intact(make_interp):
    interp = make_interp()
    extremes = {
        "lo": datetime.datetime.min,
        "hi": datetime.datetime.max,
        "dlo": datetime.timedelta.min,
        "dhi": datetime.timedelta.max,
    }
    code = "import datetime\n(lo == datetime.datetime.min, hi == datetime.datetime.max, dlo == datetime.timedelta.min, dhi == datetime.timedelta.max)"
    assert interp.execute(code, variables=extremes) == (True, True, True, True)


class Custom:
    def __str__(self):
        return "custom-object"


class Unprintable:
    def __str__(self):
        raise RuntimeError("no str")


@dataclasses.dataclass
class WithLock:
    name: str
    lock: object


@pytest.mark.parametrize(
    ("result", "expression", "expected", "type_name"),
    [
        (Custom(), "v", "custom-object", "Custom"),
        ([1, Custom()], "v", [1, "custom-object"], "Custom"),
        ({"k": Custom()}, "v['k'].upper()", "CUSTOM-OBJECT", "Custom"),
        (Unprintable(), "v", "<Unprintable object>", "Unprintable"),
        # A default repr's host address is left out: the sandbox learns nothing of the host's memory.
        (object(), "v", "<object object>", "object"),
        # dataclasses.asdict cannot copy a lock: the dataclass as a whole crosses as its str (as in dspy).
        (WithLock("n", threading.Lock()), "(type(v).__name__, v.startswith('WithLock(name='))", ("str", True), "WithLock"),
    ],
    ids=["object", "in-a-list", "in-a-dict", "str-fails", "no-address", "dataclass-that-cannot-copy"],
)
def test_a_tool_result_of_no_known_kind_crosses_as_its_str_with_a_warning(
    make_interp, caplog, result, expression, expected, type_name
):
    interp = make_interp(tools={"get": lambda: result})
    with caplog.at_level("WARNING", logger="dspy_rust_interpreter"):
        assert interp.execute(f"v = get()\n{expression}") == expected
    assert f"tool 'get' returned values of type {type_name} that the sandbox has no equivalent for" in caplog.text
    assert "strict_values=True" in caplog.text


def test_strict_values_refuses_a_tool_result_of_no_known_kind(make_interp):
    interp = make_interp(tools={"get": lambda: [1, Custom()]}, strict_values=True)
    with pytest.raises(CodeExecutionError, match=r"TypeError: tool 'get' returned a value that \[1\] has type 'Custom'"):
        interp.execute("get()")
    assert interp.execute("1 + 1") == 2


def test_strict_values_still_converts_the_known_kinds(make_interp):
    interp = make_interp(tools={"get": lambda: (Point(1.0, "a"), datetime.date(2020, 1, 1))}, strict_values=True)
    assert interp.execute("p, d = get()\n(p['label'], d.year)") == ("a", 2020)


def test_a_variable_of_no_known_kind_is_still_refused(make_interp):
    # As in dspy's interpreter: injected variables are checked strictly, and nothing is bound.
    interp = make_interp()
    with pytest.raises(TypeError, match=r"variable 'v': v\[1\] has type 'Custom', which cannot enter the sandbox"):
        interp.execute("v", variables={"ok": 1, "v": [1, Custom()]})
    with pytest.raises(CodeExecutionError, match="NameError"):
        interp.execute("ok")


def test_strict_values_must_be_a_bool(make_interp):
    with pytest.raises(ValueError, match="strict_values must be True or False"):
        make_interp(strict_values="yes")


def test_a_sandbox_that_patches_datetime_gets_its_code_run_under_its_limits(make_interp):
    # The session builds a host date with its own datetime module, which its code may have replaced: that code
    # then runs while the variables are bound, and must be held to the run's memory limit as the cell would be.
    interp = make_interp(timeout=20, memory_limit=200 << 20)
    interp.execute(
        "import datetime\nhog = []\ndef grow(*a):\n    while True:\n        hog.append(bytearray(50 << 20))\ndatetime.date = grow"
    )
    with pytest.raises(TypeError, match="MemoryError"):
        interp.execute("1", variables={"d": datetime.date(2024, 1, 1)})
    assert interp.execute("len(hog) * 50") <= 300
    assert interp.execute("del hog[:]\nsum(range(10))") == 45


def test_a_sandbox_that_breaks_sys_modules_still_gets_its_dates(make_interp):
    # The import state is restored before values are bound, so a valid host date converts.
    interp = make_interp()
    interp.execute("import sys\nsys.modules = 5")
    assert interp.execute("type(d).__name__", variables={"d": datetime.date(2024, 1, 1)}) == "date"


class FarOffset(datetime.datetime):
    def utcoffset(self):
        return datetime.timedelta(days=213503982)


def test_a_utc_offset_past_the_wire_range_is_refused_not_wrapped(make_interp):
    with pytest.raises(TypeError, match="out of range"):
        make_interp().execute("d", variables={"d": FarOffset(2020, 1, 1)})


@dataclasses.dataclass
class Page:
    text: str


@pytest.mark.parametrize(
    "result",
    [Point(0.0, "x" * (2 << 20)), Page("x" * (2 << 20)), Hit.model_construct(id=1, at="x" * (2 << 20))],
    ids=["named-tuple", "dataclass", "model"],
)
def test_max_tool_result_bytes_counts_the_fields_of_models_dataclasses_and_named_tuples(make_interp, result):
    interp = make_interp(tools={"get": lambda: result}, max_tool_result_bytes=1 << 20)
    with pytest.raises(CodeExecutionError, match="max_tool_result_bytes"):
        interp.execute("get()")
