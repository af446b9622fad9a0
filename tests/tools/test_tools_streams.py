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


def test_forged_token_reaches_no_other_stream_or_session(make_interp):
    secret = make_interp(tools={"rows": lambda: iter(["secret"])})
    secret.execute("s = rows()")  # opened and closed at the end of that run
    other = make_interp(tools={"rows": lambda: iter(["mine"])})
    token = next(iter(secret._runtime.streams), "any")
    code = (
        f"mark = rows.__globals__['_tool_mark']\n"
        f"s = rows.__globals__['_tool_Stream']('rows', {token!r})\nnext(s)"
    )
    with pytest.raises(CodeExecutionError, match="this stream is closed"):
        other.execute(code)


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
