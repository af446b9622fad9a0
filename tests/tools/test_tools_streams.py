"""Tools returning iterators stream lazily into the sandbox; abandoned streams close on the host (point 4)."""

import pytest

from dspy_rust_interpreter import CodeExecutionError, RustInterpreter


class Source:
    """A generator tool that records what was pulled and whether it was closed."""

    def __init__(self):
        self.pulled = []
        self.closed = False

    def __call__(self, n: int = 5):
        try:
            for i in range(n):
                self.pulled.append(i)
                yield i
        finally:
            self.closed = True


def test_stream_is_pulled_item_by_item(make_interp):
    source = Source()
    interp = make_interp(tools={"rows": source})
    assert interp.execute("it = rows(5)\nfirst = next(it)\nfirst") == 0
    assert source.pulled == [0]  # lazy: nothing ahead of what the code asked for
    assert interp.execute("it2 = rows(3)\nlist(it2)") == [0, 1, 2]


def test_leaving_a_loop_early_closes_the_host_generator(make_interp):
    source = Source()
    interp = make_interp(tools={"rows": source})
    interp.execute("for x in rows(1000):\n    if x == 2:\n        break\nafter = 1")
    assert source.closed and source.pulled == [0, 1, 2]


def test_del_closes_the_host_generator(make_interp):
    source = Source()
    interp = make_interp(tools={"rows": source})
    interp.execute("s = rows()\nnext(s)\ndel s\nprint('x')")
    assert source.closed


def test_end_of_execute_closes_streams_kept_in_globals(make_interp):
    source = Source()
    interp = make_interp(tools={"rows": source})
    interp.execute("kept = rows()\nnext(kept)")
    assert source.closed
    with pytest.raises(CodeExecutionError, match="this stream is closed"):
        interp.execute("next(kept)")


def test_shutdown_closes_streams():
    source = Source()
    interp = RustInterpreter(tools={"rows": source})
    interp.execute("kept = rows()\nnext(kept)")
    interp.shutdown()
    assert source.closed


def test_non_data_item_crosses_as_its_str_with_a_warning(make_interp, caplog):
    interp = make_interp(tools={"rows": lambda: iter([1, object()])})
    with caplog.at_level("WARNING", logger="dspy_rust_interpreter"):
        first, second = interp.execute("list(rows())")
    assert (first, second) == (1, "<object object>")
    assert "tool 'rows' returned values of type object" in caplog.text


def test_non_data_item_is_rejected_naming_the_tool_with_strict_values(make_interp):
    interp = make_interp(tools={"rows": lambda: iter([1, object()])}, strict_values=True)
    with pytest.raises(CodeExecutionError, match="tool 'rows' returned a value"):
        interp.execute("list(rows())")


def test_stream_error_arrives_in_the_sandbox(make_interp):
    def broken():
        yield 1
        raise ValueError("disk on fire")

    interp = make_interp(tools={"broken": broken})
    code = "got = []\ntry:\n    for x in broken():\n        got.append(x)\nexcept ValueError as e:\n    got.append(str(e))\ngot"
    assert interp.execute(code) == [1, "tool 'broken' failed with ValueError: disk on fire"]


def test_a_forged_stream_reaches_only_the_streams_its_own_run_opened(make_interp):
    interp = make_interp(tools={"rows": lambda: iter(["mine"]), "more": lambda: iter(["more"])})
    interp.execute("kept = rows()\nStream = type(kept)\nkept_id = kept._id")  # closed at the end of that run
    # The class of a stream is the sandbox's own: made by hand, it names a stream id and a tool.
    for forged in ("Stream('rows', kept_id)", "Stream('rows', 10**6)", "Stream('more', rows()._id)"):
        with pytest.raises(CodeExecutionError, match="this stream is closed"):
            interp.execute(f"next({forged})")
    assert interp.execute("s = rows()\nnext(Stream('rows', s._id))") == "mine"


def test_a_stream_opened_in_async_code_is_a_stream(make_interp):
    """Awaited in a coroutine, a streaming tool gives the same lazy iterator as a plain call, and its items
    are pulled from inside the event loop too."""
    source = Source()
    interp = make_interp(tools={"rows": source, "other": Source()})
    code = (
        "import asyncio\n"
        "async def main():\n"
        "    first, second = await asyncio.gather(rows(3), other(2))\n"
        "    return list(first), [x for x in second]\n"
        "asyncio.run(main())"
    )
    assert interp.execute(code) == ([0, 1, 2], [0, 1])
    assert source.closed


def test_no_keyword_is_taken_for_the_stream_machinery(make_interp):
    """A stream is pulled with messages of its own: any keyword a tool takes reaches it as given."""
    interp = make_interp(tools={"echo": lambda **kwargs: sorted(kwargs)})
    assert interp.execute("call_tool('echo', **{'\\x00stream': ('next', 'x'), 'a': 1})") == ["\x00stream", "a"]


def test_a_stream_item_over_max_tool_result_bytes_is_refused_and_counted(make_interp):
    interp = make_interp(tools={"rows": lambda: iter(["x" * 10, "y" * 5000])}, max_tool_result_bytes=1000)
    code = "s = rows()\ngot = [next(s)]\ntry:\n    next(s)\nexcept RuntimeError as e:\n    got.append(str(e))\ngot"
    first, refusal = interp.execute(code)
    assert first == "x" * 10
    assert "larger than max_tool_result_bytes=1000" in refusal
    assert interp.stats()["tool_results_too_large"] == 1


def test_lists_and_strings_are_not_streams(make_interp):
    interp = make_interp(tools={"listy": lambda: [1, 2], "text": lambda: "ab"})
    assert interp.execute("listy(), text()") == ([1, 2], "ab")


def test_async_generator_streams_too(make_interp):
    async def agen():
        for i in range(3):
            yield i

    interp = make_interp(tools={"agen": agen})
    assert interp.execute("list(agen())") == [0, 1, 2]


def test_stream_items_are_counted(make_interp):
    interp = make_interp(tools={"rows": Source()})
    interp.execute("list(rows(4))")
    assert interp.stats()["stream_items"] == 4
