"""numpy's and pandas' values across the host boundary (src/protocol/library_data.py): given as variables or tool
results they arrive as the same types, dtypes and indexes, and they come back as themselves through trailing
values, SUBMIT and tool arguments; a session without the library is told how to get it; and what a session sends
is made again only as data, whatever its parts say."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dspy_rust_interpreter import FinalOutput, RustInterpreter

LIBRARY_DATA = Path(__file__).resolve().parents[3] / "src" / "protocol" / "library_data.py"


@pytest.fixture(scope="module")
def data():
    interp = RustInterpreter(packages=["numpy", "pandas"], timeout=60)
    interp.execute("import numpy as np\nimport pandas as pd")
    yield interp
    interp.shutdown()


def mixed_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "n": [1, 2, 3],
            "name": ["ann", None, "cy"],
            "when": pd.to_datetime(["2024-01-01", "2024-02-29", None]),
            "kind": pd.Categorical(["a", "b", "a"], categories=["b", "a"], ordered=True),
            "count": pd.array([1, None, 3], dtype="Int64"),
            "x": [1.5, 2.5, np.nan],
            "local": pd.date_range("2024-03-30", periods=3, tz="Europe/Paris"),
            "flag": [True, False, True],
            "mixed": np.array([1, "two", None], dtype=object),
        },
        index=pd.Index(["r1", "r2", "r3"], name="row"),
    )


VALUES = {
    "ints": np.arange(12, dtype=np.int32).reshape(3, 4),
    "floats": np.array([1.5, np.nan, -np.inf]),
    "transposed": np.arange(6.0).reshape(2, 3).T,
    "strings": np.array(["ab", "c"]),
    "raw": np.array([b"x", b"yz"]),
    "flags": np.array([True, False]),
    "days": np.array(["2024-01-01", "NaT"], dtype="datetime64[D]"),
    "objects": np.array([1, "a", None, [2]], dtype=object),
    "zero_d": np.array(2.5),
    "empty": np.zeros((0, 3)),
    "f64": np.float64(2.5),
    "i8": np.int8(-3),
    "b": np.bool_(True),
    "stamp64": np.datetime64("2021-03-04T05:06"),
    "text": np.str_("hi"),
    "frame": mixed_frame(),
    "series": pd.Series([1.0, 2.0], index=pd.Index(["a", "b"]), name="s"),
    "multi": pd.DataFrame({"v": [1, 2]}, index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["k", "n"])),
    "grouped": pd.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3]}).groupby("k").sum(),
    "same_names": pd.DataFrame([[1, 2]], columns=["a", "a"]),
    "dates": pd.date_range("2024-01-01", periods=3, freq="D", name="d"),
    "range": pd.RangeIndex(2, 20, 3, name="r"),
    "stamp": pd.Timestamp("2024-01-01 10:00", tz="US/Eastern"),
    "delta": pd.Timedelta("1h30min"),
    "nat": pd.NaT,
    "na": pd.NA,
    "no_rows": pd.DataFrame({"a": pd.Series([], dtype=float)}),
}


def same(a, b) -> bool:
    """Whether ``b`` is ``a`` again: type, dtype, shape, repr and values."""
    if type(a) is not type(b):
        return False
    if isinstance(a, pd.DataFrame):
        return a.equals(b) and list(a.dtypes) == list(b.dtypes) and a.index.equals(b.index) and repr(a) == repr(b)
    if isinstance(a, (pd.Series, pd.Index)):
        return a.equals(b) and a.dtype == b.dtype and a.name == b.name and repr(a) == repr(b)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and repr(a) == repr(b)
    return repr(a) == repr(b)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_a_variable_arrives_as_itself_and_comes_back_as_itself(data, name):
    value = VALUES[name]
    shown = data.execute("(type(v).__module__, type(v).__name__, repr(v))", variables={"v": value})
    assert shown == (type(value).__module__, type(value).__name__, repr(value))
    back = data.execute("v", variables={"v": value})
    assert same(value, back), (value, back)


def test_a_frame_is_usable_as_the_library_made_it(data):
    shown = data.execute(
        "(str(df.dtypes.to_dict()), df['n'].sum().item(), repr(df.loc['r2', 'name']), "
        "str(df['local'].dt.tz), df['kind'].cat.ordered, df.index.name)",
        variables={"df": mixed_frame()},
    )
    frame = mixed_frame()
    assert shown == (
        str(frame.dtypes.to_dict()),
        6,
        repr(frame.loc["r2", "name"]),
        "Europe/Paris",
        True,
        "row",
    )


def test_submitted_and_final_values_are_the_librarys(data):
    result = data.execute("SUBMIT(table=pd.DataFrame({'a': [1, 2]}), total=np.int64(3), arr=np.ones(2))")
    assert type(result) is FinalOutput
    assert same(pd.DataFrame({"a": [1, 2]}), result.output["table"])
    assert same(np.int64(3), result.output["total"])
    assert same(np.ones(2), result.output["arr"])


def test_a_large_array_crosses_whole_both_ways(data):
    big = np.random.default_rng(1).random(12_500_000)  # 100 MB
    assert data.execute("float(big.sum())", variables={"big": big}) == float(big.sum())
    back = data.execute("big[::-1].copy()", variables={"big": big})
    assert back.shape == big.shape and np.array_equal(back, big[::-1])


def test_tool_results_and_arguments_are_the_librarys():
    seen = []

    def load(rows: int):
        return pd.DataFrame({"v": np.arange(rows)})

    def keep(frame):
        seen.append(frame)
        return len(frame)

    with RustInterpreter(packages=["numpy", "pandas"], tools={"load": load, "keep": keep}) as interp:
        assert interp.execute("f = load(rows=4)\n(type(f).__name__, int(f['v'].sum()))") == ("DataFrame", 6)
        assert interp.execute("keep(f[f.v > 1])") == 2
    assert same(pd.DataFrame({"v": np.arange(4)})[lambda f: f.v > 1], seen[0])


def test_a_session_without_the_library_is_told_how_to_get_it():
    with RustInterpreter() as interp:
        with pytest.raises(Exception) as raised:
            interp.execute("df", variables={"df": pd.DataFrame({"a": [1]})})
        assert 'pandas: RustInterpreter(packages=["pandas"])' in str(raised.value)
        # A tool's result of that kind still crosses as its str(), as any unknown value does.
        with RustInterpreter(tools={"load": lambda: np.arange(3)}) as tooled:
            assert tooled.execute("load()") == "[0 1 2]"


def test_time_zones_work_in_the_sandbox_and_in_pandas(data):
    assert data.execute(
        "import zoneinfo\n(str(zoneinfo.ZoneInfo('Europe/Paris')), str(pd.Timestamp('2024-07-01', tz='Europe/Paris')))"
    ) == ("Europe/Paris", "2024-07-01 00:00:00+02:00")


# --- What a session sends is untrusted: the host makes only data from it ------------------------------------


@pytest.fixture(scope="module")
def maker():
    spec = importlib.util.spec_from_file_location("_library_data_under_test", LIBRARY_DATA)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("kind", "parts"),
    [
        ("os.system", ("echo",)),
        ("numpy.ndarray", ("|O8", (1,), b"\0" * 8)),  # objects from bytes would be addresses
        ("numpy.ndarray", ("V8", (1,), b"\0" * 8)),
        ("numpy.ndarray", ("<f8", (2,), b"\0" * 8)),  # fewer bytes than the shape says
        ("numpy.ndarray", ("<f8", (1 << 40, 1 << 40), b"")),
        ("numpy.ndarray", ("<f8", (-1,), b"")),
        ("numpy.ndarray", ("<f8", (True,), b"\0" * 8)),
        ("numpy.ndarray", ("<f8", (1,) * 33, b"\0" * 8)),
        ("numpy.ndarray", ("<f8", (1,), "not bytes")),
        ("numpy.ndarray", ("<f8", (1,))),
        ("numpy.ndarray[object]", ((3,), [1, 2])),
        ("numpy.scalar", ("<f8", b"\0")),
        ("numpy.ndarray[str objects]", ((2,), "a\0b\0c", "\0", np.array([False, False]))),  # three strs for two
        ("numpy.ndarray[str objects]", ((2,), "ab", "b", np.array([False, False]))),  # not a separator
        ("numpy.ndarray[str objects]", ((2,), "a\0b", "\0", np.array([0, 0]))),
        ("numpy.ndarray[str objects]", ((3,), "a\0b", "\0", np.array([False, False]))),
        ("pandas.Series", (np.arange(2), pd.RangeIndex(3), None)),
        ("pandas.Series", ("abc", pd.RangeIndex(3), None)),
        ("pandas.DataFrame", (pd.Index(["a"]), [np.arange(2)], pd.RangeIndex(3))),
        ("pandas.DataFrame", (pd.Index(["a", "b"]), [np.arange(3)], pd.RangeIndex(3))),
        ("pandas.array", ("object; import os", np.array([1], dtype=object))),
        ("pandas.Index", (np.arange(3), None, "../../etc")),
        ("pandas.RangeIndex", ("0", 3, 1, None)),
        ("pandas.Timestamp", ("2024", None)),
    ],
)
def test_hostile_parts_are_refused(maker, kind, parts):
    with pytest.raises((ValueError, TypeError)):
        maker.make(kind, parts)


def test_rlm_with_a_dataframe_input_answers_from_it():
    import functools

    import dspy
    from dspy.utils.dummies import DummyLM

    look = "```python\nprint(type(sales).__name__, sales.shape, list(sales.dtypes.astype(str)))\n```"
    answer = (
        "```python\n"
        "top = sales.groupby('region')['amount'].sum().sort_values(ascending=False)\n"
        "SUBMIT(region=top.index[0], total=float(top.iloc[0]))\n"
        "```"
    )
    lm = DummyLM([{"reasoning": "Look at the data.", "code": look}, {"reasoning": "Sum the amounts by region.", "code": answer}])
    sales = pd.DataFrame({"region": ["north", "south", "north", "east"], "amount": [10.0, 4.5, 7.25, 3.0]})
    factory = functools.partial(RustInterpreter, packages=["numpy", "pandas"])
    rlm = dspy.RLM("sales, query -> region: str, total: float", interpreter_factory=factory, max_iters=2)
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
        prediction = rlm(sales=sales, query="Which region sold most?")
    assert (prediction.region, prediction.total) == ("north", 17.25)
    assert "DataFrame (4, 2) ['str', 'float64']" in prediction.trajectory[0]["output"]


def test_a_million_strs_cross_as_one_text_both_ways(data):
    frame = pd.DataFrame({"label": ["abc", None, "é✓"] * 400_000, "n": np.arange(1_200_000)})
    assert data.execute("(df['label'].isna().sum().item(), df['label'].iloc[2])", variables={"df": frame}) == (400_000, "é✓")
    back = data.execute("df.assign(upper=df['label'].str.upper())")
    assert same(frame.assign(upper=frame["label"].str.upper()), back)
