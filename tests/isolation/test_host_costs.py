"""What ordinary sandbox code can make the host spend (docs/security.md, "What a hostile session can cost the
host"). Every attack is plain code given to ``execute()``, run in a child process (``run_child``), so that a
host that stalls, hangs or dies is a failure of its own and never holds up the suite. The bounds are wide: a
sound host answers in a small fraction of them, while each attack as first found took many times longer.
"""

from __future__ import annotations

import ast
import textwrap

import pytest
from isolated import run_child

# Defined in every child after isolated.PRELUDE (which gives outcome(), results, json, sys, time).
HELPERS = """
import threading

def attempt(interp, code, **kwargs):
    '''outcome(), also recording any other exception execute() raised (the protocol allows none).'''
    started = time.perf_counter()
    try:
        return outcome(interp, code, **kwargs)
    except SyntaxError as error:
        return {"kind": "syntax", "message": str(error)[:2000], "seconds": time.perf_counter() - started}
    except BaseException as error:
        return {"kind": "raised " + type(error).__name__, "message": str(error)[:2000],
                "seconds": time.perf_counter() - started}

def rss():
    '''The host process's resident memory, in bytes.'''
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) * 1024

class Ticker:
    '''A host thread that notes the time every few ms: the longest gap is how long it was starved.'''

    def __init__(self):
        self.ticks = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.ticks.append(time.perf_counter())
            time.sleep(0.005)

    def __enter__(self):
        self._thread.start()
        time.sleep(0.05)
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc_info):
        self.ended = time.perf_counter()
        self._stop.set()
        self._thread.join()

    def longest_gap(self):
        marks = [self.started] + [t for t in self.ticks if self.started < t < self.ended] + [self.ended]
        return max(b - a for a, b in zip(marks, marks[1:]))
"""


def run_scenario(script: str, setup: str = "", timeout: float = 120.0) -> dict:
    """``run_child`` with HELPERS and ``setup`` (unindented source) defined first."""
    return run_child(HELPERS + setup + textwrap.dedent(script), timeout=timeout)


# -- Keys that hash apart in the sandbox but alike on the host -----------------------------------------------

# Int subclasses, each its own hash in the sandbox; as plain ints on the host all hash to 0 (CPython hashes
# ints modulo 2**61 - 1), so building the set there is quadratic, holding the GIL: 32,000 keys took 13-15 s
# as found (4.5 s for CPython's set() alone on a fast core). 64,000 keys make that four times as long, so the
# bounds below tell a stalled host from a loaded machine anywhere.
COLLIDING = "M = (1 << 61) - 1\nclass K(int):\n    def __hash__(self):\n        return int(self) // M\n"
COLLIDING_ROUTES = {
    "result-set": "{K(i * M) for i in range(1, 64001)}",
    "result-dict": "{K(i * M): 0 for i in range(1, 64001)}",
    "tool-argument": "echo({K(i * M) for i in range(1, 64001)})",
    "submit": "SUBMIT({K(i * M) for i in range(1, 64001)})",
    "async-tool-argument": "import asyncio\nsize = await echo({K(i * M) for i in range(1, 64001)})\nsize",
}


@pytest.mark.parametrize("route", list(COLLIDING_ROUTES), ids=list(COLLIDING_ROUTES))
def test_keys_colliding_on_the_host_neither_stall_it_nor_starve_its_threads(route):
    """A value whose keys share one hash on the host is answered quickly, other host threads
    keep running meanwhile, and the session goes on."""
    code = COLLIDING + COLLIDING_ROUTES[route]
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=2, tools={{"echo": lambda value: len(value)}})
        interp.execute("ready = 1")
        with Ticker() as ticker:
            results["run"] = attempt(interp, {code!r})
        results["longest_gap"] = ticker.longest_gap()
        results["after"] = attempt(interp, "1 + 1")
        interp.shutdown()
        """
    )
    run = results["run"]
    assert run["kind"] in ("value", "error"), run
    # timeout=2: a sound host answers in a fraction of a second.
    assert run["seconds"] < 10.0, f"execute() took {run['seconds']:.1f} s with timeout=2"
    assert results["longest_gap"] < 3.0, f"another host thread was starved for {results['longest_gap']:.1f} s"
    assert results["after"].get("value") == "2", results["after"]


def test_the_hosts_work_on_a_tools_arguments_counts_against_the_time_limit():
    """Only a tool's own code is exempt from the run's time limit. Arguments the host is slow to
    build (keys that collide on the host only, under the host's collision budget), passed to a tool that returns
    at once in an endless loop, made a run with timeout=1 take 48 s (10,924 calls): the session's clock stood
    still while the host converted each call's arguments, and the host did not count that time either."""
    code = COLLIDING + "S = {K(i * M) for i in range(1, 1000)}\nwhile True:\n    echo(S)"
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=1, abandon_after=1, tools={{"echo": lambda value: 0}})
        interp.execute("kept = 'yes'")
        results["run"] = attempt(interp, {code!r})
        results["after"] = attempt(interp, "kept")
        interp.shutdown()
        """
    )
    run = results["run"]
    assert run["kind"] == "error" and "TimeoutError" in run["message"], run
    # timeout=1: stopped within a second or two of it (was 48 s).
    assert run["seconds"] < 8.0, f"execute() took {run['seconds']:.1f} s with timeout=1"
    assert results["after"].get("value") == "'yes'", results["after"]


def test_arguments_of_calls_a_run_started_are_bounded_and_let_go_when_it_ends():
    """The host copies each started call's arguments, and calls a finished run left queued
    kept theirs until a worker came by. One 40 MB str passed to 25 calls of a tool that waits (as a model
    does) grew the host by 1 GB a cell, 4 GB after four, with a 256 MiB session. Now the running calls' arguments
    may hold the session's memory limit (a start past it is refused), and a run's queued calls let go of theirs
    when it ends."""
    code = (
        "import asyncio\nbig = 'x' * (40 << 20)\n"
        "async def start():\n    return [slow(big) for _ in range(25)]\n"
        "calls = await start()\nlen(calls)"
    )
    past_limit = (
        "import asyncio\nbig = 'x' * (30 << 20)\n"
        "calls = [asyncio.ensure_future(slow(big)) for _ in range(5)]\n"
        "done = await asyncio.gather(*calls, return_exceptions=True)\n"
        "print([type(d).__name__ for d in done]); print(done[4])"
    )
    results = run_scenario(
        f"""
        def slow(value):
            time.sleep(3)
            return len(value)

        interp = RustInterpreter(tools={{"slow": slow}}, timeout=10, memory_limit=256 << 20, max_concurrent_tools=2)
        interp.execute("kept = 'yes'")
        before = rss()
        growth = []
        for _ in range(3):
            results["run"] = attempt(interp, {code!r})
            growth.append(rss() - before)
        results["growth"] = growth
        small = RustInterpreter(tools={{"slow": slow}}, timeout=30, memory_limit=128 << 20, max_concurrent_tools=8)
        results["refused"] = attempt(small, {past_limit!r})
        small.shutdown()
        results["after"] = attempt(interp, "kept")
        interp.shutdown()
        """
    )
    assert results["run"]["kind"] == "value", results["run"]
    # Two calls running (their 40 MB each) and whatever else the host's allocator kept: never the 25 copies.
    assert max(results["growth"]) < 400 << 20, [g >> 20 for g in results["growth"]]
    refused = results["refused"]
    assert refused["kind"] == "value" and "['int', 'int', 'int', 'int', 'TypeError']" in refused["value"], refused
    assert "would pass the 128 MiB they may hold" in refused["value"], refused
    assert results["after"].get("value") == "'yes'", results["after"]


def test_a_rollbacks_replay_is_bounded_as_a_whole_not_cell_by_cell():
    """Cells that were quick but spin when run again (they read the clock) made the replay
    after a rollback take a full run's limits each: 60 of them, 61.7 s at timeout=1. The replay as a whole now
    has one run's limits and twice the replay budget; past that the session is its checkpoint, the cells after
    it reported lost."""
    results = run_scenario(
        """
        interp = RustInterpreter(timeout=1, abandon_after=0.5)
        interp.execute(f"import time\\nT0 = {time.time() + 0.5!r}\\nkept = 'yes'")
        for i in range(30):
            interp.execute(f"c{i} = {i}\\nif time.time() > T0:\\n    while True:\\n        pass")
        time.sleep(0.6)
        results["run"] = attempt(interp, "x = 10 ** (10 ** 8)")
        results["after"] = attempt(interp, "kept")
        interp.shutdown()
        """
    )
    run = results["run"]
    assert run["kind"] == "error" and "TimeoutError" in run["message"], run
    # Abandoned at about 1.5 s, then a replay of at most 2 x 0.5 + 1 + 2 s: was 30 x 2 s more.
    assert run["seconds"] < 12.0, f"execute() took {run['seconds']:.1f} s with timeout=1"
    assert results["after"].get("value") == "'yes'", results["after"]


def test_checking_a_tools_arguments_against_its_annotations_counts_against_the_time_limit():
    """The checks made from a tool's annotations run inside the call, and were exempt
    with it. A list of ints colliding on the host, checked against `set[int]`, took the host ~7 s a call, and a
    loop of such calls ran until killed at 120 s with timeout=1."""
    code = "M = (1 << 61) - 1\nids = [i * M for i in range(1, 20000)]\nwhile True:\n    lookup(ids)"
    results = run_scenario(
        f"""
        def lookup(ids: set[int]) -> int:
            return len(ids)

        interp = RustInterpreter(timeout=1, abandon_after=1, tools={{"lookup": lookup}})
        interp.execute("kept = 'yes'")
        results["run"] = attempt(interp, {code!r})
        results["after"] = attempt(interp, "kept")
        interp.shutdown()
        """
    )
    run = results["run"]
    assert run["kind"] == "error" and "TimeoutError" in run["message"], run
    # One call's check (a few seconds holding the GIL), then the stop: was without end.
    assert run["seconds"] < 40.0, f"execute() took {run['seconds']:.1f} s with timeout=1"
    assert results["after"].get("value") == "'yes'", results["after"]


@pytest.mark.parametrize("shape", ["results-not-awaited", "keyword-names"])
def test_what_async_calls_hold_on_the_host_is_bounded_however_it_is_held(shape):
    """Results of finished calls the session had not yet taken were not counted (60
    echoes of a 20 MB str: the host peaked at 1.3 GB with a 128 MiB session), nor were keyword names (30 calls
    with a 10 MB keyword all started)."""
    code = {
        "results-not-awaited": (
            "import asyncio, time\nk = 'k' * (20 << 20)\n"
            "async def start():\n    return [echo(k) for _ in range(60)]\n"
            "calls = await start()\nt = time.time()\nwhile time.time() - t < 3:\n    pass\n0"
        ),
        "keyword-names": (
            "import asyncio\nk = 'k' * (10 << 20)\n"
            "calls = [asyncio.ensure_future(slow(**{k: 1})) for _ in range(30)]\n"
            "done = await asyncio.gather(*calls, return_exceptions=True)\nsum(isinstance(d, TypeError) for d in done)"
        ),
    }[shape]
    results = run_scenario(
        f"""
        def echo(value):
            return value

        def slow(*args, **kwargs):
            time.sleep(1)
            return 0

        peak = [0]
        def watch():
            while True:
                peak[0] = max(peak[0], rss())
                time.sleep(0.02)

        before = rss()
        threading.Thread(target=watch, daemon=True).start()
        interp = RustInterpreter(timeout=30, memory_limit=128 << 20, max_concurrent_tools=8, tools={{"echo": echo, "slow": slow}})
        results["run"] = attempt(interp, {code!r})
        results["growth"] = peak[0] - before
        interp.shutdown()
        """
    )
    assert results["growth"] < 600 << 20, f"the host grew {results['growth'] >> 20} MB for a 128 MiB session: {results['run']}"
    if shape == "keyword-names":
        assert results["run"]["kind"] == "value" and int(results["run"]["value"]) > 0, results["run"]


def test_refolding_a_cells_constants_stays_linear():
    """Every load of a shared constant asked every other load whether it wanted the same
    value: a list of 80,000 folded items took 12.8 s to compile (CPython: 0.18 s), in native code the time limit
    cannot stop."""
    code = "src = 'x = [' + '6.0//1.5, ' * 80000 + ']'\nexec(src)\n(len(x), x[0], x[-1])"
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=30)
        results["run"] = attempt(interp, {code!r})
        interp.shutdown()
        """
    )
    run = results["run"]
    assert run.get("value") == "(80000, 4.0, 4.0)", run
    assert run["seconds"] < 6.0, f"compiling took {run['seconds']:.1f} s"


# -- Values the host cannot build, and variables that cannot cross -------------------------------------------

UNHASHABLE = "class T(tuple):\n    def __hash__(self):\n        return 1\nkey = T(([1], 2))\n"
UNHASHABLE_ROUTES = {
    "result-dict": "{key: 'v'}",
    "result-set": "{key}",
    "submit": "SUBMIT({key: 'v'})",
    "tool-argument": "echo({key: 'v'})",
    "async-tool-argument": "import asyncio\nsize = await echo({key: 'v'})\nsize",
}


@pytest.mark.parametrize("route", list(UNHASHABLE_ROUTES), ids=list(UNHASHABLE_ROUTES))
def test_a_value_the_host_cannot_build_is_the_cells_error(route):
    """A key hashable in the sandbox but not on the host (a tuple holding a list) makes
    execute() raise CodeExecutionError, not a bare TypeError, and the session goes on."""
    code = UNHASHABLE + UNHASHABLE_ROUTES[route]
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=5, tools={{"echo": lambda value: len(value)}})
        results["run"] = attempt(interp, {code!r})
        results["after"] = attempt(interp, "1 + 1")
        interp.shutdown()
        """
    )
    assert results["run"]["kind"] == "error", f"execute() must raise CodeExecutionError: {results['run']}"
    assert results["after"].get("value") == "2", results["after"]


def test_a_variable_that_cannot_cross_is_a_code_interpreter_error_and_a_type_error():
    """A variable of no known kind is refused with an error both dspy's and the stdlib's
    ``except`` clauses catch, and the session is unchanged."""
    results = run_scenario(
        """
        interp = RustInterpreter(timeout=5)
        interp.execute("kept = 'yes'")
        try:
            interp.execute("x", variables={"x": object()})
            results["raised"] = None
        except BaseException as error:
            results["raised"] = type(error).__name__
            results["interpreter_error"] = isinstance(error, CodeInterpreterError)
            results["type_error"] = isinstance(error, TypeError)
        results["after"] = attempt(interp, "(kept, 'x' in globals())")
        interp.shutdown()
        """
    )
    assert results["raised"] is not None, "a variable holding object() was accepted"
    assert results["interpreter_error"] and results["type_error"], results
    assert results["after"].get("value") == "('yes', False)", results["after"]


# -- The rollback journal and a cell's tool results -----------------------------------------------------------

# A cell whose tool results add up to 1,200 MB, one fresh 1 MB string at a time.
HEAVY = "total = 0\nfor _ in range(1200):\n    total += len(blob())\nheavy = total\nheavy"


def test_a_cells_tool_results_do_not_pile_up_on_the_host():
    """A cell that calls a tool 1,200 times for a fresh 1 MB string each does not grow the host
    by the sum of the results, and a later rollback restores that cell's variables or says they were lost."""
    results = run_scenario(
        f"""
        import resource

        def peak_mb():
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        served = [0]

        def blob():
            served[0] += 1
            return str(served[0]).ljust(1 << 20, "x")

        interp = RustInterpreter(timeout=3, abandon_after=0.5, memory_limit=256 << 20, tools={{"blob": blob}})
        interp.execute("kept = 'before'")
        before = peak_mb()
        results["heavy"] = attempt(interp, {HEAVY!r})
        results["growth_mb"] = peak_mb() - before
        # A native operation that ignores the time limit: abandoned, and the session rolled back.
        results["abandoned"] = attempt(interp, "x = 10 ** (10 ** 8)")
        results["after"] = attempt(interp, "(kept, globals().get('heavy'), 'x' in globals())")
        interp.shutdown()
        """
    )
    assert results["heavy"].get("value") == str(1200 << 20), results["heavy"]
    # 1,200 MB of results went through; a host that journals them all grows by about that much.
    assert results["growth_mb"] < 400, f"the host grew by {results['growth_mb']:.0f} MB during the cell"
    abandoned = results["abandoned"]
    assert abandoned["kind"] == "error" and abandoned["type"] == "TimeoutError", abandoned
    assert "restored" in abandoned["message"], abandoned
    after = results["after"]
    if after.get("value") != f"('before', {1200 << 20}, False)":
        # The tool-heavy cell was not restored: then the rollback must have said so.
        assert after.get("value") == "('before', None, False)", after
        assert "lost" in abandoned["message"], abandoned["message"]


# -- Host calls that cells started and never awaited ---------------------------------------------------------

TOOLS_20MS = """
import asyncio
lock = threading.Lock()
invocations = [0]

def count():
    with lock:
        invocations[0] += 1

def sync_tool(i=0):
    count()
    time.sleep(0.02)
    if i % 2:
        raise ValueError(f"call {i} failed")
    return i

async def async_tool(i=0):
    count()
    await asyncio.sleep(0.02)
    if i % 2:
        raise ValueError(f"call {i} failed")
    return i

def quick():
    return "quick"
"""

# A cell that starts 1,000 calls and ends without awaiting them.
START_1000 = (
    "import asyncio\nasync def start():\n    return [slow(i) for i in range(1000)]\nstarted = await start()\nlen(started)"
)


# Its cells meet a 2 s time limit natively, not under emulation.
@pytest.mark.native_process
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_calls_a_cell_left_running_stop_when_it_ends(kind):
    """Calls three cells started and never awaited stop being invoked soon after the cells
    end, and a later cell's call is not queued behind them."""
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=2, max_concurrent_tools=4, tools={{"slow": {kind}_tool, "quick": quick}})
        results["cells"] = [attempt(interp, {START_1000!r}) for _ in range(3)]
        time.sleep(0.5)  # calls already running when the cells ended may finish
        settled = invocations[0]
        time.sleep(1.0)
        results["invocations"] = [settled, invocations[0]]
        results["later"] = attempt(interp, "answer = await quick()\\nanswer")
        interp.shutdown()
        """,
        setup=TOOLS_20MS,
    )
    assert all(cell["kind"] == "value" for cell in results["cells"]), results["cells"]
    settled, later = results["invocations"]
    assert later == settled, f"the tool was invoked {later - settled} more times in the second after the cells ended"
    later_cell = results["later"]
    assert later_cell.get("value") == "'quick'", later_cell
    # timeout=2; a call queued behind 3,000 others took 24.7 s.
    assert later_cell["seconds"] < 1.0, f"a later cell's quick call took {later_cell['seconds']:.1f} s"


# Three ways a cell leaves calls behind: bare calls, tasks that await them, a gather nobody awaits.
LEFT_BEHIND = {
    "bare-calls": "async def start():\n    for i in range(1000):\n        slow(i)\nawait start()\n",
    "tasks": "async def one(i):\n    return await slow(i)\nfor i in range(1000):\n    asyncio.create_task(one(i))\n",
    "gather": "async def start():\n    asyncio.gather(*(slow(i) for i in range(1000)))\nawait start()\n",
}
# Each cell then runs the loop a little (so some calls finish, some of them failing) and ends.
LEAVE = "import asyncio\n{}await asyncio.sleep(0.1)\n'left'"


# Later cells: what they print and compute, and nothing else.
LATER = "print('later')\nanswer = await quick()\nanswer"
COLLECTED = "import asyncio, gc\ngc.collect()\nawait asyncio.sleep(0.05)\nanswer = await quick()\nanswer"


# Its cells meet a 2 s time limit natively, not under emulation.
@pytest.mark.native_process
@pytest.mark.parametrize("shape", list(LEFT_BEHIND), ids=list(LEFT_BEHIND))
def test_calls_an_earlier_cell_left_behind_print_nothing_into_a_later_cell(shape):
    """What happens to the calls earlier cells left behind shows up in no later cell's output: a
    later cell returns exactly what it printed and computed (but for a failure of the earlier code's own that
    it never retrieved, which CPython reports too)."""
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=2, max_concurrent_tools=4, tools={{"slow": async_tool, "quick": quick}})
        results["cells"] = [attempt(interp, {LEAVE.format(LEFT_BEHIND[shape])!r}) for _ in range(2)]
        results["later"] = attempt(interp, {LATER!r})
        results["collected"] = attempt(interp, {COLLECTED!r})
        interp.shutdown()
        """,
        setup=TOOLS_20MS,
    )
    assert all(cell["kind"] == "value" for cell in results["cells"]), results["cells"]
    later, collected = results["later"].get("value", ""), results["collected"].get("value", "")
    for value in (later, collected):
        assert "was still running when the cell" not in value and "HostCall" not in value, value
    if shape == "gather":
        # The gather's own failure (a tool that raised, which no code retrieved) is reported to stderr when the
        # gather is collected, as CPython reports it: what the later cell printed is untouched.
        stdout, _, stderr = ast.literal_eval(later).partition("[stderr]\n")
        assert stdout == "later\n'quick'\n" and stderr.startswith("_GatheringFuture exception was never retrieved"), later
        return
    assert later == repr("later\n'quick'"), results["later"]
    assert collected == repr("quick"), results["collected"]


# -- A number the session sends that the host cannot add to its clock ----------------------------------------


@pytest.mark.parametrize("wait", ["1e19", "1e308", "float('inf')", "float('nan')", "-1.0"])
def test_no_wait_the_sandbox_asks_for_panics_the_host(wait):
    """``_sandbox_async._wait`` with a huge, infinite, NaN or negative time leaves no panic on
    the host's stderr, and the session goes on."""
    code = (
        "import asyncio, _sandbox_async\n"
        "async def go():\n"
        "    call = slow()\n"  # starts a host call, so the wait has one to wait for
        f"    return _sandbox_async._wait({wait})\n"
        "await go()\n"
        "'waited'"
    )
    results = run_scenario(
        f"""
        import os, tempfile

        def slow():
            time.sleep(0.2)
            return "slow"

        interp = RustInterpreter(timeout=5, tools={{"slow": slow}})
        interp.execute("ready = 1")
        capture = tempfile.TemporaryFile()
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            results["run"] = attempt(interp, {code!r})
            results["after"] = attempt(interp, "1 + 1")
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
        capture.seek(0)
        results["stderr"] = capture.read().decode(errors="replace")[-3000:]
        interp.shutdown()
        """
    )
    assert "panicked" not in results["stderr"] and "backtrace" not in results["stderr"], results["stderr"]
    assert results["run"]["kind"] in ("value", "error"), results["run"]
    assert results["run"]["seconds"] < 10.0, results["run"]
    assert results["after"].get("value") == "2", results["after"]


# -- Parts of a result that max_output_chars did not cap ------------------------------------------------------

LIMIT = 1000
HUGE_PARTS = {
    "trailing-repr-after-print": "print('x')\n'y' * 20_000_000",
    "repr-of-a-non-data-value": "class R:\n    def __repr__(self):\n        return 'r' * 20_000_000\nR()",
    "exception-type-name": "raise type('E' * 5_000_000, (Exception,), {})()",
    "exception-message": "raise ValueError('m' * 100_000_000)",
    "exception-str": "class E(Exception):\n    def __str__(self):\n        return 's' * 10_000_000\nraise E()",
    "function-name-in-traceback": "exec('def ' + 'f' * 1_000_000 + '():\\n    1 / 0\\n' + 'f' * 1_000_000 + '()')",
}


@pytest.mark.parametrize("case", list(HUGE_PARTS), ids=list(HUGE_PARTS))
def test_every_part_of_a_result_is_capped_by_max_output_chars(case):
    """With max_output_chars=1000, no part of what execute() returns or raises (the value, the
    error's text, type name, traceback, output or any other attribute) is much longer than the cap."""
    results = run_scenario(
        f"""
        interp = RustInterpreter(timeout=20, max_output_chars={LIMIT})
        started = time.perf_counter()
        try:
            value = interp.execute({HUGE_PARTS[case]!r})
            results["kind"] = "value"
            results["parts"] = {{"value": len(value) if isinstance(value, str) else len(repr(value))}}
        except CodeExecutionError as error:
            results["kind"] = "error"
            parts = {{"str(error)": len(str(error))}}
            parts.update({{f"args[{{i}}]": len(str(arg)) for i, arg in enumerate(error.args)}})
            parts.update({{name: len(attribute) if isinstance(attribute, str) else len(repr(attribute))
                          for name, attribute in vars(error).items()}})
            results["parts"] = parts
        results["seconds"] = time.perf_counter() - started
        interp.shutdown()
        """
    )
    too_long = {part: length for part, length in results["parts"].items() if length >= 2 * LIMIT + 1000}
    assert not too_long, f"parts longer than the cap of {LIMIT} allows (characters): {too_long}"
