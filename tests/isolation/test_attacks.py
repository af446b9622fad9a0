"""The attacks that broke the in-process design (issue 12, *Why*), each pinned: in the process design none of
them reaches the host or another session, loses the session, or leaves anything running or allocated.

Every scenario runs in a child process (``run_isolated``) with a hard time bound.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from isolated import PRELUDE, run_isolated

# --- Host data ---------------------------------------------------------------------------------------------------


def test_the_hosts_stdin_is_out_of_reach():
    # `sys._baserepl()` read the host process's real stdin (returned in the SyntaxError's text), and with a
    # terminal or a stdio-speaking server on stdin it blocked and ate the host's next input.
    script = PRELUDE + textwrap.dedent(
        """
        interp = RustInterpreter(timeout=5)
        for code in ("import sys\\nsys._baserepl()", "input()", "import sys\\nsys.stdin.read()"):
            results[code] = outcome(interp, code)
        results["host_line"] = sys.stdin.readline()
        print('RESULTS:' + json.dumps(results))
        """
    )
    process = subprocess.run(
        [sys.executable, "-c", script], input="host secret line\n", capture_output=True, text=True, timeout=120
    )
    assert process.returncode == 0, process.stderr[-3000:]
    line = next(line for line in process.stdout.splitlines() if line.startswith("RESULTS:"))
    results = __import__("json").loads(line[len("RESULTS:") :])
    assert results.pop("host_line") == "host secret line\n", "the host's input is still there for the host"
    for code, result in results.items():
        assert "host secret" not in str(result), (code, result)
        assert result["seconds"] < 5, (code, result)


def test_the_hosts_environment_is_not_in_the_session():
    results = run_isolated(
        """
        import os
        os.environ["HOST_SECRET_TOKEN"] = "s3cr3t-value"
        interp = RustInterpreter()
        results["environ"] = outcome(interp, "import os\\nsorted(os.environ)")
        interp.shutdown()
        """
    )
    assert "HOST_SECRET_TOKEN" not in str(results["environ"])


# --- One session reads another's data ------------------------------------------------------------------------------

WEAKREF_CYCLE_LEAVE = """
import weakref, operator
secret = 'session-A-secret'
def cb(ref, secret=secret):
    pass
x = [weakref.ref(object, cb)]
x.append(operator.itemgetter(x))
"""
WEAKREF_CYCLE_READ = """
class C:
    pass
found = []
try:
    refs = C.__dict__['__weakref__'].__get__(object, type)
    found.append(repr(refs))
except Exception as e:
    found.append(type(e).__name__)
found
"""

INTERN_LEAVE = "import sys\nsys.intern(''.join(['zqxv', '_identifier_of_A']))\n1"
INTERN_PROBE = "import sys\na = ''.join(['zqxv', '_identifier_of_A'])\nsys.intern(a) is a"


@pytest.mark.parametrize(
    ("leave", "probe", "check"),
    [
        (WEAKREF_CYCLE_LEAVE, WEAKREF_CYCLE_READ, lambda value: "session-A-secret" not in value),
        (INTERN_LEAVE, INTERN_PROBE, lambda value: value == "True"),
        ("import _json\ndel _json.make_scanner.__call__", "import json\njson.loads('[1, 2]')", lambda value: value == "[1, 2]"),
    ],
    ids=["weakref cycle", "sys.intern", "json scanner"],
)
def test_a_session_cannot_reach_the_next_ones_data(leave, probe, check):
    results = run_isolated(
        f"""
        a = RustInterpreter()
        results["leave"] = outcome(a, {leave!r})
        b = RustInterpreter()
        results["probe"] = outcome(b, {probe!r})
        a.shutdown()
        b.shutdown()
        """
    )
    assert results["probe"]["kind"] == "value", results
    assert check(results["probe"]["value"]), results


def test_random_numbers_differ_between_sessions():
    # Sessions are forks of one zygote: nothing that seeds itself may be imported there.
    results = run_isolated(
        """
        values = []
        for _ in range(3):
            interp = RustInterpreter()
            values.append(interp.execute("import random, os\\n(random.random(), os.urandom(8).hex())"))
            interp.shutdown()
        results["values"] = values
        """
    )
    values = results["values"]
    assert len({v[0] for v in values}) == 3 and len({v[1] for v in values}) == 3, values


# --- Lost sessions: one-liners whose output size depends on the data ------------------------------------------

OUTPUT_SIZE_BOMBS = [
    "'\\t'.expandtabs(2**31-1)",
    "set(range(10**9))",
    "'-'.join(['x' * 1000] * 10**7)",
    "format(1, '2000000000')",
    "(10**(10**6)) ** 50",
    "import re\nre.sub('a', 'b' * 10**6, 'a' * 10**4)",
    "import zlib\nzlib.decompress(zlib.compress(b'\\0' * (50 << 20)) , bufsize=1)",
    "bytearray(2**40)",
    "[None] * 10**10",
]


def run_after_kept(options: str, code: str) -> dict:
    """In a child: bind `kept` in an interpreter made with `options`, run `code`, then read `kept` again;
    also whether the process that ran `code` is still there afterwards."""
    return run_isolated(
        f"""
        import os
        interp = RustInterpreter({options})
        interp.execute("kept = 'still here'")
        first_pid = interp._session.pid
        results["run"] = outcome(interp, {code!r})
        results["after"] = outcome(interp, "kept")
        time.sleep(0.2)
        results["first_process_alive"] = os.path.exists(f"/proc/{{first_pid}}")
        interp.shutdown()
        """,
        timeout=180,
    )


@pytest.mark.parametrize("code", OUTPUT_SIZE_BOMBS)
def test_an_operation_too_large_for_the_limit_keeps_the_session(code):
    results = run_after_kept("memory_limit=64 << 20, timeout=20, abandon_after=2", code)
    assert results["run"]["kind"] == "error", results["run"]
    assert results["run"]["type"] in ("MemoryError", "OverflowError", "ValueError", "TimeoutError"), results["run"]
    assert results["after"]["value"] == "'still here'", results


# --- Burnt cores: native operations that ignore the stop ---------------------------------------------------------

UNSTOPPABLE = [
    # A bytes pattern keeps `_sre`'s own backtracking search (a str one is decided by the automaton at once).
    "import re\nre.match(rb'(a+)+$', b'a' * 64 + b'b')",
    "import itertools\nsum(itertools.repeat(0))",
    "import itertools\n-1 in itertools.count()",
]


@pytest.mark.parametrize("code", UNSTOPPABLE)
def test_an_unstoppable_operation_is_abandoned_and_nothing_keeps_running(code):
    results = run_after_kept("timeout=0.5, abandon_after=0.5", code)
    run = results["run"]
    assert run["type"] == "TimeoutError" and "abandoned" in run["message"], run
    assert "variables are as they were before this cell" in run["message"]
    assert run["seconds"] < 10
    assert results["after"]["value"] == "'still here'"
    assert not results["first_process_alive"], "the stuck process is gone (killed and reaped)"


# --- Host hangs ------------------------------------------------------------------------------------------------


def test_shutdown_from_another_thread_ends_code_without_a_time_limit():
    results = run_isolated(
        """
        import threading
        interp = RustInterpreter(timeout=None, abandon_after=1)
        interp.execute("x = 1")
        started = time.perf_counter()
        timer = threading.Timer(0.5, interp.shutdown)
        timer.start()
        results["run"] = outcome(interp, "import itertools\\nsum(itertools.repeat(0))")
        results["seconds"] = time.perf_counter() - started
        timer.join()
        """
    )
    assert results["run"]["kind"] == "dead", results["run"]
    assert results["seconds"] < 5


# Busy code, and code waiting for gathered host calls (4 s each): a cancel answers the wait at once and stops
# the code, without waiting for the calls (which finish on the host, their results dropped).
CANCELLED_RUNS = {
    "busy": "while True:\n    x += 1",
    "waiting_for_host_calls": "await asyncio.gather(slow(1), slow(2))",
}


@pytest.mark.parametrize("code", CANCELLED_RUNS.values(), ids=CANCELLED_RUNS.keys())
def test_a_cancelled_aexecute_stops_its_code(code):
    results = run_isolated(
        f"""
        import asyncio
        def slow(i):
            time.sleep(4)
            return i
        interp = RustInterpreter(tools={{"slow": slow}}, timeout=None, abandon_after=1)
        interp.execute("import asyncio\\nx = 1")
        async def main():
            task = asyncio.create_task(interp.aexecute({code!r}))
            await asyncio.sleep(0.5)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        started = time.perf_counter()
        asyncio.run(main())
        results["seconds"] = time.perf_counter() - started
        results["after"] = outcome(interp, "'usable'")
        interp.shutdown()
        """
    )
    assert results["seconds"] < 3, results
    assert results["after"]["value"] == "'usable'", results["after"]


def test_two_interpreters_whose_tools_call_each_other_from_two_threads_do_not_deadlock():
    results = run_isolated(
        """
        import threading
        barrier = threading.Barrier(2, timeout=10)
        holder = {}
        def call_b():
            barrier.wait()
            return holder["b"].execute("1 + 1")
        def call_a():
            barrier.wait()
            return holder["a"].execute("2 + 2")
        holder["a"] = RustInterpreter(tools={"call_b": call_b}, timeout=30)
        holder["b"] = RustInterpreter(tools={"call_a": call_a}, timeout=30)
        out = {}
        def run(name, code):
            out[name] = outcome(holder[name], code)
        threads = [threading.Thread(target=run, args=("a", "call_b()")), threading.Thread(target=run, args=("b", "call_a()"))]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        results["hung"] = any(t.is_alive() for t in threads)
        results["seconds"] = time.perf_counter() - started
        results["out"] = out
        """
    )
    assert not results["hung"]
    assert results["seconds"] < 20
    messages = [r.get("message", "") for r in results["out"].values()]
    assert any("deadlock" in m for m in messages), results["out"]
