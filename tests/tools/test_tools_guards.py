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


class Blob:
    """A value of no kind the sandbox knows, whose str() is large."""

    def __str__(self):
        return "z" * 5000


@pytest.mark.parametrize(
    ("result", "limit"),
    [(Blob(), 1000), (10**3000, 1000), ({"k" * 600: "v" * 600}, 1000), ([Blob()], 1000)],
    ids=["str-of-unknown-kind", "big-int", "dict-keys-count", "nested-unknown"],
)
def test_max_tool_result_bytes_counts_what_crosses(make_interp, result, limit):
    """The limit counts the data that crosses, by the walk that converts it: an object passed as its str()
    counts that text, a big int its digits' bytes, a dict its keys."""
    interp = make_interp(tools={"get": lambda: result}, max_tool_result_bytes=limit)
    with pytest.raises(CodeExecutionError, match=f"larger than max_tool_result_bytes={limit}"):
        interp.execute("get()")
    assert interp.stats()["tool_results_too_large"] == 1


def test_max_tool_result_bytes_applies_to_calls_async_code_starts(make_interp):
    interp = make_interp(tools={"big": lambda n: "x" * n}, max_tool_result_bytes=1000)
    code = (
        "import asyncio\n"
        "async def main():\n"
        "    return await asyncio.gather(big(10), big(5000), return_exceptions=True)\n"
        "small, refused = asyncio.run(main())\n"
        "small, type(refused).__name__, 'max_tool_result_bytes=1000' in str(refused)"
    )
    assert interp.execute(code) == ("x" * 10, "RuntimeError", True)
    assert interp.stats()["tool_results_too_large"] == 1


def test_a_result_within_max_tool_result_bytes_crosses_whole(make_interp):
    interp = make_interp(tools={"get": lambda: {"k": "v" * 900, "n": [1, 2.5, None]}}, max_tool_result_bytes=1000)
    assert interp.execute("r = get()\nlen(r['k']), r['n']") == (900, [1, 2.5, None])
    assert interp.stats()["tool_results_too_large"] == 0


def test_output_chars_counts_the_data_of_a_value_that_is_not_text(make_interp):
    interp = make_interp()
    interp.execute("[b'xx', 'abc', 7]")
    # 2 for the list, the bytes of its str and bytes, 8 for the int.
    assert interp.stats()["output_chars"] == 2 + 2 + 3 + 8


def test_slow_call_is_warned_about(make_interp, caplog):
    interp = make_interp(tools={"nap": lambda: time.sleep(0.06)}, slow_tool_seconds=0.05)
    with caplog.at_level(logging.WARNING, logger="dspy_rust_interpreter"):
        interp.execute("nap()")
    assert any("tool 'nap' was slow" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("tool_timeout", 0),
        ("tool_timeout", "1"),
        ("max_tool_calls", -1),
        ("max_tool_result_bytes", 1.5),
        ("slow_tool_seconds", None),
    ],
)
def test_bad_guard_options_are_refused(option, value):
    with pytest.raises(ValueError, match=option):
        RustInterpreter(**{option: value})
