"""Limits stop runaway code and keep the session: each scenario runs in a child process (see isolated.py)."""

from __future__ import annotations

import pytest
from isolated import run_isolated

# Generous bounds: they catch a limit that does not work (a hang), not a slow machine.
STOP_SLACK = 2.0

RUNAWAY = {
    "busy_loop": "while True: pass",
    "catches_base_exception": "while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass",
    "loops_in_finally": "try:\n    while True: pass\nfinally:\n    while True: pass",
    "recursive_handler": ("def spin():\n    try:\n        while True: pass\n    except BaseException:\n        spin()\nspin()"),
    "generator": "def gen():\n    while True:\n        yield 1\nfor _ in gen(): pass",
    "sleep": "import time\ntime.sleep(3600)",
}


@pytest.mark.parametrize("code", RUNAWAY.values(), ids=RUNAWAY.keys())
def test_runaway_code_is_stopped_with_timeout_error_and_the_session_survives(code):
    results = run_isolated(
        f"""
        interp = RustInterpreter(timeout=0.5)
        interp.execute("kept = [1, 2, 3]")
        results["run"] = outcome(interp, {code!r})
        results["after"] = outcome(interp, "kept + [4]")
        """
    )
    run = results["run"]
    assert run["kind"] == "error" and run["type"] == "TimeoutError"
    assert run["message"].startswith("TimeoutError: execution exceeded the time limit of 0.5 s")
    assert run["seconds"] < 0.5 + STOP_SLACK
    assert results["after"] == {"kind": "value", "value": "[1, 2, 3, 4]", "seconds": results["after"]["seconds"]}


def test_sleep_of_the_original_time_module_is_refused_past_the_time_left():
    results = run_isolated(
        """
        interp = RustInterpreter(timeout=1.0)
        results["run"] = outcome(interp, "import sys\\ndel sys.modules['time']\\nimport time\\ntime.sleep(3600)")
        """
    )
    assert results["run"]["type"] == "TimeoutError"
    assert "time.sleep(3600) would run past the time limit" in results["run"]["message"]


def test_time_in_tools_does_not_count_against_the_limit():
    results = run_isolated(
        """
        def slow_tool():
            time.sleep(0.4)
            return "done"
        interp = RustInterpreter(tools={"slow_tool": slow_tool}, timeout=0.3)
        results["run"] = outcome(interp, "[slow_tool() for _ in range(3)][-1]")
        """
    )
    assert results["run"]["kind"] == "value" and results["run"]["value"] == "'done'"


def test_timeout_none_disables_the_limit():
    results = run_isolated(
        """
        interp = RustInterpreter(timeout=None)
        results["run"] = outcome(interp, "import time\\ntime.sleep(0.3)\\n'slept'")
        """
    )
    assert results["run"]["value"] == "'slept'"


def test_uninterruptible_native_work_is_abandoned_and_the_session_goes_on():
    results = run_isolated(
        """
        interp = RustInterpreter(timeout=0.2, abandon_after=0.5)
        other = RustInterpreter()
        other.execute("y = 1")
        interp.execute("kept = 'yes'")
        results["run"] = outcome(interp, "x = 10**(10**8)")
        results["again"] = outcome(interp, "(kept, 'x' in globals())")
        started = time.perf_counter()
        interp.shutdown()
        results["shutdown_seconds"] = time.perf_counter() - started
        results["other"] = outcome(other, "y + 1")
        """
    )
    run = results["run"]
    assert run["kind"] == "error" and run["type"] == "TimeoutError", run
    assert "abandoned" in run["message"] and "variables are as they were before this cell" in run["message"]
    assert run["seconds"] < 0.2 + 0.5 + STOP_SLACK
    assert results["again"]["value"] == "('yes', False)"
    assert results["shutdown_seconds"] < STOP_SLACK
    assert results["other"]["value"] == "2"


def test_ctrl_c_in_the_host_stops_the_sandbox_and_reaches_the_caller():
    results = run_isolated(
        """
        import os, signal, threading
        # Ctrl-C as a terminal's Python gets it, whatever this child inherited from the test process (a full
        # run's child has been seen to wait on a SIGINT that never reached Python's handler): what it inherited
        # is reported, and the handler and the mask are made the standard ones.
        results["inherited"] = [repr(signal.getsignal(signal.SIGINT)), signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])]
        print("inherited SIGINT state:", results["inherited"], file=sys.stderr, flush=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        interp = RustInterpreter(timeout=None)
        interp.execute("kept = 'yes'")
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        started = time.perf_counter()
        try:
            interp.execute("while True: pass")
            results["raised"] = None
        except KeyboardInterrupt:
            results["raised"] = "KeyboardInterrupt"
        results["seconds"] = time.perf_counter() - started
        results["after"] = outcome(interp, "kept")
        """
    )
    assert results["raised"] == "KeyboardInterrupt"
    assert results["seconds"] < 0.3 + STOP_SLACK
    assert results["after"]["value"] == "'yes'"


def test_huge_print_is_truncated_with_a_note_and_returns():
    results = run_isolated(
        """
        interp = RustInterpreter(max_output_chars=1000)
        results["run"] = outcome(interp, "print('x' * 100_000_000)")
        """
    )
    value = results["run"]["value"]
    assert value.startswith(
        "'" + "x" * 500 + "\\n[output truncated: 99999001 of 100000001 characters were dropped here, before the last 500;"
    )
    assert value.endswith("]\\n" + "x" * 499 + "\\n'")


def test_recursion_limit_is_clamped_and_deep_recursion_is_a_recursion_error():
    results = run_isolated(
        """
        interp = RustInterpreter()
        results["limit"] = outcome(interp, "import sys\\nsys.setrecursionlimit(10**9)\\nsys.getrecursionlimit()")
        results["deep"] = outcome(interp, "def f(n):\\n    return f(n + 1)\\nf(0)")
        results["after"] = outcome(interp, "1 + 1")
        """
    )
    assert results["limit"]["value"] == "10000"
    assert results["deep"]["type"] == "RecursionError"
    assert "[Previous line repeated" in results["deep"]["message"]
    assert len(results["deep"]["message"]) < 5000
    assert results["after"]["value"] == "2"


def test_int_str_digit_limit_cannot_be_lifted():
    results = run_isolated(
        """
        interp = RustInterpreter()
        results["set"] = outcome(interp, "import sys\\nsys.set_int_max_str_digits(0)\\nsys.get_int_max_str_digits()")
        results["huge"] = outcome(interp, "len(str(10**200_000))")
        """
    )
    assert results["set"]["value"] == "100000"
    assert results["huge"]["type"] == "ValueError"


def test_unknown_option_and_bad_limit_values_are_rejected():
    from dspy_rust_interpreter import RustInterpreter

    with pytest.raises(
        TypeError,
        match="the options are: abandon_after, deno_command, enable_env_vars, enable_network_access, enable_read_paths, enable_write_paths, files_max_bytes, files_max_count, max_concurrent_tools, max_output_chars, max_tool_calls, max_tool_result_bytes, memory_limit, mounts, packages, preload, slow_tool_seconds, strict_values, sync_files, timeout, tool_timeout",
    ):
        RustInterpreter(time_limit=3)
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        RustInterpreter(timeout=0)
    with pytest.raises(ValueError, match="max_output_chars"):
        RustInterpreter(max_output_chars=-1)
    for bad in (0, -1, 2.5, True, None):
        with pytest.raises(ValueError, match="max_concurrent_tools must be a positive int"):
            RustInterpreter(max_concurrent_tools=bad)
    for name in ("files_max_bytes", "files_max_count"):
        for bad in (-1, 2.5, True, None):
            with pytest.raises(ValueError, match=f"{name} must be a non-negative int"):
                RustInterpreter(**{name: bad})
    with pytest.raises(TypeError, match="mounts must be a list of Mount"):
        RustInterpreter(mounts="/data")
    with pytest.raises(TypeError, match="sync_files must be True or False"):
        RustInterpreter(sync_files="yes")


GROWTH = {
    "list_of_strings": "x = []\nwhile True: x.append('a' * 1000)",
    "dict_of_lists": "d = {}\nk = 0\nwhile True:\n    d[k] = [k]\n    k += 1",
    "small_objects": "objs = []\nwhile True: objs.append(object())",
    "catches_memory_error": "try:\n    x = []\n    while True: x.append('a' * 1000)\nexcept MemoryError:\n    y = [1] * 10**8",
    "huge_str": "'a' * 10**12",
    "huge_bytearray": "bytearray(10**12)",
    "huge_list": "[0] * 10**11",
}


@pytest.mark.parametrize("code", GROWTH.values(), ids=GROWTH.keys())
def test_memory_growth_past_the_limit_is_memory_error_and_the_session_survives(code):
    results = run_isolated(
        f"""
        interp = RustInterpreter(memory_limit=128 << 20, timeout=60)
        interp.execute("kept = 'still here'")
        results["run"] = outcome(interp, {code!r})
        results["cleanup"] = outcome(interp, "for name in ['x', 'd', 'objs', 'y']:\\n    globals().pop(name, None)")
        results["after"] = outcome(interp, "kept + '!'")
        results["fresh_work"] = outcome(interp, "len([i for i in range(100_000)])")
        """
    )
    assert results["run"]["kind"] == "error" and results["run"]["type"] == "MemoryError", results["run"]
    assert results["cleanup"]["kind"] == "value"
    assert results["after"]["value"] == "'still here!'"
    assert results["fresh_work"]["value"] == "100000"


def test_memory_limit_none_lets_code_use_more():
    results = run_isolated(
        """
        interp = RustInterpreter(memory_limit=None)
        results["run"] = outcome(interp, "x = 'a' * (200 << 20)\\nlen(x)")
        """
    )
    assert results["run"]["value"] == str(200 << 20)


def test_bad_memory_limit_is_rejected():
    from dspy_rust_interpreter import RustInterpreter

    with pytest.raises(ValueError, match="memory_limit must be a positive number of bytes or None"):
        RustInterpreter(memory_limit=0)


def test_ctrl_c_at_any_moment_of_a_call_leaves_the_interpreter_usable():
    # Under load, Ctrl-C once landed between the interpreter's lock being taken and the code that lets it go:
    # the KeyboardInterrupt reached the caller, and the next execute() waited for the lock for ever. Here
    # SIGINT lands at many moments of many calls; after each, the interpreter must answer.
    results = run_isolated(
        """
        import os, random, signal, threading
        interp = RustInterpreter(timeout=5.0)
        interp.execute("kept = 'yes'")
        rng = random.Random(7)
        interrupted = answered = 0
        for _ in range(300):
            timer = threading.Timer(rng.uniform(0, 0.002), lambda: os.kill(os.getpid(), signal.SIGINT))
            try:
                timer.start()
                try:
                    interp.execute("x = sum(range(1000))")
                except CodeExecutionError:
                    pass  # the interrupt reached the sandbox
                timer.join()
                time.sleep(0.01)  # a signal sent late is handled here, not in the check below
            except KeyboardInterrupt:
                interrupted += 1
            timer.join()
            try:
                if interp.execute("kept") == "yes":
                    answered += 1
            except CodeExecutionError:
                pass  # an interrupt that reached the session as this run began: answered, with that error
        results["answered"] = answered
        results["interrupted"] = interrupted
        results["after"] = outcome(interp, "kept")
        """,
        timeout=120,
    )
    assert results["after"]["value"] == "'yes'"
    assert results["answered"] > 200, results
