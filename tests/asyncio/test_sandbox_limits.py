"""asyncio inside the sandbox's limits: what the sandbox lacks is refused with a clear error, a loop with
nothing left to wait for says so instead of hanging, and a limit that stops a cell in the middle of an event
loop leaves the session able to run asyncio again."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("await asyncio.open_connection('example.com', 80)", "PermissionError: [Errno 13] the sandbox has no network"),
        ("await asyncio.start_server(print, port=8000)", "PermissionError: [Errno 13] the sandbox has no network"),
        ("await asyncio.create_subprocess_exec('ls')", "PermissionError: [Errno 13] the sandbox cannot start programs"),
        ("await asyncio.create_subprocess_shell('ls')", "PermissionError: [Errno 13] the sandbox cannot start programs"),
        ("asyncio.get_running_loop().add_reader(0, print)", "NotImplementedError: the sandbox has no file descriptors"),
        ("asyncio.get_running_loop().add_signal_handler(2, print)", "NotImplementedError: the sandbox does not deliver"),
        ("import socket\nsocket.socket()", "PermissionError: [Errno 13] the sandbox has no network"),
        ("import subprocess\nsubprocess.run(['ls'])", "PermissionError: [Errno 13] the sandbox cannot start programs"),
        ("import signal\nsignal.signal(signal.SIGINT, print)", "NotImplementedError: the sandbox does not deliver signals"),
    ],
)
def test_what_the_sandbox_lacks_is_refused_clearly(interp, code, error):
    interp.execute("import asyncio")
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(code if "await" in code or "import" in code else f"async def f():\n    {code}\nawait f()")
    assert str(raised.value).startswith(error), str(raised.value)


def test_to_thread_runs_the_function_in_the_one_thread(interp):
    assert interp.execute("import asyncio\nawait asyncio.to_thread(sorted, [3, 1, 2])") == [1, 2, 3]


@pytest.mark.parametrize("code", ["await asyncio.Event().wait()", "await asyncio.get_running_loop().create_future()"])
def test_a_loop_with_nothing_to_wait_for_says_so(interp, code):
    interp.execute("import asyncio")
    with pytest.raises(CodeExecutionError, match="RuntimeError: the event loop would wait forever"):
        interp.execute(code)


@pytest.mark.parametrize(
    "stopped",
    ["await asyncio.sleep(30)", "asyncio.run(asyncio.sleep(30))", "async def spin():\n    while True: pass\nawait spin()"],
    ids=["top-level-await", "asyncio.run", "busy-task"],
)
def test_a_time_limit_stops_an_event_loop_and_asyncio_works_after(make_interp, stopped):
    interp = make_interp(timeout=1)
    interp.execute("import asyncio\nkept = 'yes'")
    with pytest.raises(CodeExecutionError, match="TimeoutError"):
        interp.execute(stopped)
    assert interp.execute("await asyncio.sleep(0, result=kept)") == "yes"
    assert interp.execute("asyncio.run(asyncio.sleep(0, result=1))") == 1
