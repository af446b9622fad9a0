"""The benchmark's workloads, run inside one child process per implementation and workload group.

    python benchmarks/workloads.py --impl rust --group main [--quick]

prints one JSON object on stdout: ``{"impl", "group", "skipped", "workloads": {key: {"value": x} | {"error": s}}}``.
Anything an implementation prints while it runs goes to stderr, so stdout carries only that object.

Timing is ``time.perf_counter_ns``; warm-up runs are never timed; a workload's figure is the median of its
timed repeats. A workload an implementation cannot do is recorded as the error it raised, never as a number.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adapters import ADAPTERS, Adapter  # noqa: E402


@dataclass(frozen=True)
class Workload:
    key: str
    group: str
    label: str
    unit: str


# RLM's text work over a long `context` (issue 30): what its models write most. Each is (label, setup, code);
# `context` (a generated service log) and `records_json` are in the namespace before anything is timed, and
# `lines` is made by the setup where the code needs it.
TEXT_CODE: dict[str, tuple[str, str, str]] = {
    "counter_top": (
        "Counter(context.split()).most_common(5)",
        "from collections import Counter",
        "top = Counter(context.split()).most_common(5)",
    ),
    "sort_by_key": (
        "sort lines by a key (the user field)",
        "lines = context.splitlines()",
        "ordered = sorted(lines, key=lambda line: line.split(' ', 4)[3])",
    ),
    "finditer_named": (
        "finditer with named groups, re.M",
        "import re",
        "found = [m.group('id') for m in re.finditer(r'^(?P<ts>\\S+) (?P<level>[A-Z]+) (?P<id>INC-\\d{5})', context, re.M)]",
    ),
    "error_lines": ("lines containing ' ERROR '", "", "errors = [line for line in context.splitlines() if ' ERROR ' in line]"),
    "fstring_report": (
        "a report built with f-strings",
        "lines = context.splitlines()",
        "report = '\\n'.join(f'{i:>6} | {line[:24]} | {len(line)}' for i, line in enumerate(lines))",
    ),
    "word_count_dict": (
        "word count in a dict",
        "",
        "counts = {}\nfor word in context.split():\n    counts[word] = counts.get(word, 0) + 1",
    ),
    "chunks": ("chunking by slices of 4,000", "", "chunks = [context[i:i + 4000] for i in range(0, len(context), 4000)]"),
    "split_fields": ("split fields per line", "", "fields = [line.split(' ') for line in context.splitlines()]"),
    "findall_ids": ("re.findall(r'INC-\\d{5}')", "import re", "ids = re.findall(r'INC-\\d{5}', context)"),
    "re_sub": ("re.sub of dates", "import re", "masked = re.sub(r'\\d{4}-\\d{2}-\\d{2}', 'DATE', context)"),
    "json_round_trip": (
        "json round trip of the records",
        "import json\nrecords = json.loads(records_json)",
        "back = json.loads(json.dumps(records))",
    ),
    "find_loop": (
        "str.find loop over every ' ERROR '",
        "",
        "n = 0\nat = context.find(' ERROR ')\nwhile at != -1:\n    n += 1\n    at = context.find(' ERROR ', at + 1)",
    ),
    "re_split": ("re.split on blank runs", "import re", "parts = re.split(r'\\s+', context)"),
    "re_search_lines": (
        "re.search per line",
        "import re\nlines = context.splitlines()",
        "users = [m.group(1) for line in lines if (m := re.search(r'user=(\\w+)', line))]",
    ),
    "str_count": ("str.count", "", "n = context.count('ERROR') + context.count('user=')"),
    "splitlines": ("splitlines", "", "lines = context.splitlines()"),
    "lower": ("lower", "", "low = context.lower()"),
    "word_set": ("set of words", "", "vocabulary = set(context.split())"),
    "nlargest": (
        "heapq.nlargest(10, lines, key=len)",
        "import heapq\nlines = context.splitlines()",
        "longest = heapq.nlargest(10, lines, key=len)",
    ),
    "json_loads": ("json.loads of a list of records", "import json", "records = json.loads(records_json)"),
    # A loop at the top level of a cell calling a builtin, as models write them (each `len` a name lookup).
    "long_lines": (
        "a top-level loop counting long lines with len()",
        "lines = context.splitlines()",
        "long = 0\nfor line in lines:\n    if len(line) > 100:\n        long += 1",
    ),
}

# Every row of the table, in order. The group decides which child process measures it.
WORKLOADS: list[Workload] = [
    Workload("import_ms", "startup", "import of the implementation (fresh process)", "ms"),
    Workload("cold_start_ms", "startup", "cold start: construct -> first print(1) returned", "ms"),
    Workload("new_session_ms", "startup", "another session in a warm process: construct -> print(1)", "ms"),
    Workload("first_import_ms", "startup", "first `import json, re` in a fresh session", "ms"),
    Workload(
        "tools_session_ms",
        "startup",
        "another session with RLM's tools (llm_query, llm_query_batched, one more): construct -> print(1)",
        "ms",
    ),
    Workload("tools_session_paced_ms", "startup", "the same at RLM's pace: each session 50 ms after the last one ended", "ms"),
    Workload(
        "package_first_ms", "startup", "first session with packages=['sympy'] in the process: construct -> `import sympy`", "ms"
    ),
    Workload(
        "package_session_ms", "startup", "another session with that package set: construct -> `import sympy; print(1)`", "ms"
    ),
    Workload("pool_checkout_ms", "startup", "from a pool: checkout -> first print(1) returned", "ms"),
    Workload("pool_first_import_ms", "startup", "from a pool: first `import json, re`", "ms"),
    Workload("warm_median_us", "main", "warm execute('x = x + 1') median", "µs"),
    Workload("warm_p99_us", "main", "warm execute('x = x + 1') p99", "µs"),
    Workload("sum_ms", "main", "sum(i*i for i in range(10**6))", "ms"),
    Workload("fib_ms", "main", "fib(24) recursive", "ms"),
    Workload("wordcount_ms", "main", "word count, 1 MB string in the namespace", "ms"),
    Workload("gather_ms", "main", "8 host tool calls of 50 ms each, gathered in one cell (one after the other: 400 ms)", "ms"),
    Workload("tool_call_us", "main", "host tool call, 10k echo(x=i) in one execute (per call)", "µs"),
    Workload("inject_first_ms", "main", "execute('len(doc)') with a new 10 MB str variable", "ms"),
    Workload("reinject_ms", "main", "same 10 MB str object injected again (RLM's next iteration)", "ms"),
    Workload("peak_rss_mb", "main", "peak RSS of the process tree over the main workloads", "MB"),
    Workload("sorted_ms", "cpu", "sorted() of 200,000 floats", "ms"),
    Workload("grep_ms", "cpu", "count lines containing a word (splitlines, lower, in), 1.4 MB", "ms"),
    Workload("regex_ms", "cpu", "regex scan (re.findall of words ending in -ing, and numbers), 1 MB", "ms"),
    Workload("json_ms", "cpu", "json.dumps then json.loads of a 1 MB document", "ms"),
    Workload("classes_ms", "cpu", "class-heavy: 100,000 objects with methods and attributes", "ms"),
    Workload("strbuild_ms", "cpu", "string building: 200,000 f-strings joined, 20,000 += appends", "ms"),
    Workload("rss_per_interp_mb", "memory", "memory (Pss) per extra live interpreter (10 more, each touched)", "MB"),
    Workload("scaling_1t_per_s", "scaling", "CPU loop throughput, 1 thread", "runs/s"),
    Workload("scaling_2t_per_s", "scaling", "CPU loop throughput, 2 threads, one session each", "runs/s"),
    Workload("scaling_ratio", "scaling", "2-thread / 1-thread throughput", "x"),
    Workload("scaling_process_ratio", "scaling", "control: 2 processes / 1 process, one session each", "x"),
    Workload("scaling_threads_vs_processes", "scaling", "2 threads in one process / 2 processes", "x"),
    *[
        Workload(f"text_{key}_{size}_ms", "text", f"{label}, {size.upper()} context", "ms")
        for size in ("1mb", "10mb")
        for key, (label, _setup, _code) in TEXT_CODE.items()
    ],
    Workload("leak_total_mb", "leak", "RSS growth over K create->import->shutdown cycles", "MB"),
    Workload("leak_kb_per_cycle", "leak", "RSS growth per create->import->shutdown cycle", "KB"),
]
GROUPS = list(dict.fromkeys(w.group for w in WORKLOADS))


@dataclass(frozen=True)
class Settings:
    """How many repeats each workload gets; --quick shrinks everything so CI proves the command in seconds."""

    startup_sessions: int  # extra sessions timed in one startup process
    warm_iterations: int
    warm_warmup: int
    compute_repeats: int
    tool_calls: int
    tool_repeats: int
    inject_sessions: int
    reinject_repeats: int
    scaling_window_s: float  # each throughput counts the runs completed in this many seconds
    scaling_rounds: int  # rounds of 1 thread, 2 threads, 1 process, 2 processes; medians are reported
    leak_cycles: int
    leak_warmup: int
    # Fresh sessions each compute workload is timed in, their samples pooled: on this kind of machine one
    # session can run a workload 1.5x slower than the next, every run of it, with the same profile.
    compute_sessions: int = 3
    extra_interpreters: int = 10
    # The text group's contexts and repeats (each figure is the best of its repeats: these are long runs).
    text_sizes: tuple[tuple[str, int], ...] = (("1mb", 1_000_000), ("10mb", 10_000_000))
    text_repeats: int = 5


FULL = Settings(
    startup_sessions=10,
    warm_iterations=2000,
    warm_warmup=200,
    compute_repeats=5,
    tool_calls=10_000,
    tool_repeats=3,
    inject_sessions=3,
    reinject_repeats=5,
    scaling_window_s=1.5,
    scaling_rounds=16,
    leak_cycles=10_000,
    leak_warmup=20,
)
QUICK = Settings(
    startup_sessions=2,
    warm_iterations=300,
    warm_warmup=30,
    compute_repeats=1,
    tool_calls=10_000,
    tool_repeats=1,
    inject_sessions=1,
    reinject_repeats=2,
    scaling_window_s=0.5,
    scaling_rounds=2,
    leak_cycles=200,
    leak_warmup=5,
    compute_sessions=1,
    text_sizes=(("1mb", 1_000_000),),
    text_repeats=1,
)

WORDS = "the quick brown fox jumps over a lazy dog while seven sandboxes count every word twice".split()


def make_text(size: int) -> str:
    """A deterministic text of ``size`` characters made of short words."""
    chunk = " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(4096)) + " "
    return (chunk * (size // len(chunk) + 1))[:size]


def pause(seconds: float) -> float:
    """A host tool that waits, as a model or a search API does."""
    time.sleep(seconds)
    return seconds


def llm_query(prompt: str) -> str:
    """Stand-in for RLM's sub-LLM tool (its signature; the benchmark never calls it)."""
    return prompt[:10]


def llm_query_batched(prompts: list[str]) -> list[str]:
    """Stand-in for RLM's batched sub-LLM tool."""
    return [p[:10] for p in prompts]


def search_docs(query: str, limit: int = 5) -> list[str]:
    """A user tool as RLM passes it beside its own two."""
    return [query] * limit


# The gap between sessions made at RLM's pace (`tools_session_paced_ms`).
PACE_S = 0.05
RLM_TOOLS = {"llm_query": llm_query, "llm_query_batched": llm_query_batched, "search_docs": search_docs}
# The package set timed by the startup group: sympy (with mpmath) is what ProgramOfThought's models import.
BENCH_PACKAGES = ["sympy"]


def echo(x: Any) -> Any:
    return x


# --------------------------------------------------------------------------------------------------------------
# Memory of the process tree. RustInterpreter, pydantic-monty, LocalInterpreter and Deno do their work in child
# processes, so their memory is ours plus that of every descendant. Each process counts its proportional share
# of what it shares with others (Pss): RustInterpreter's sessions are copy-on-write forks of one zygote, and
# summing their RSS would count the shared image once per session.


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # The command name may contain spaces and parentheses: the ppid follows the last ')'.
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return _status_kb(pid, "VmRSS")


def tree_rss_kb() -> int:
    """Resident memory now (proportional set size): this process and all its live descendants."""
    me = os.getpid()
    return sum(_pss_kb(pid) for pid in [me, *_descendants(me)])


class PeakTracker:
    """Peak RSS of the process tree: our high-water mark plus each live descendant's, sampled after every
    workload (before its sessions shut down), and the largest finished child's peak (getrusage)."""

    def __init__(self) -> None:
        self.children_peak_kb = 0

    def sample(self) -> None:
        import resource

        children = sum(_status_kb(pid, "VmHWM") for pid in _descendants(os.getpid()))
        finished = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KB on Linux
        self.children_peak_kb = max(self.children_peak_kb, children, finished)

    def peak_mb(self) -> float:
        return (_status_kb(os.getpid(), "VmHWM") + self.children_peak_kb) / 1024


# --------------------------------------------------------------------------------------------------------------
# Timing helpers.


def timed_ns(run: Callable[[], Any]) -> int:
    start = time.perf_counter_ns()
    run()
    return time.perf_counter_ns() - start


def median_ms(samples_ns: list[int]) -> float:
    return statistics.median(samples_ns) / 1e6


def pooled(sessions: int, run_once: Callable[[], dict[str, list[int]]]) -> Callable[[], dict[str, float]]:
    """Run a measurement that returns raw samples in ``sessions`` fresh sessions; report each median of all."""

    def run() -> dict[str, float]:
        samples: dict[str, list[int]] = {}
        for _ in range(sessions):
            for key, values in run_once().items():
                samples.setdefault(key, []).extend(values)
        return {key: median_ms(values) for key, values in samples.items()}

    return run


def percentile(samples: list[int], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Recorder:
    """Collects each workload's value, or the error that stopped it, so one failure never ends the run."""

    def __init__(self) -> None:
        self.workloads: dict[str, dict[str, Any]] = {}

    def record(self, keys: list[str], measure: Callable[[], dict[str, Any]]) -> None:
        try:
            values = measure()
        except BaseException as exc:  # noqa: BLE001 - a peer's failure is a result, not a crash
            if isinstance(exc, KeyboardInterrupt):
                raise
            message = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]
            for key in keys:
                self.workloads[key] = {"error": message}
            return
        note = values.get("note")
        for key in keys:
            self.workloads[key] = {"value": values[key], **({"note": note} if note else {})}


# --------------------------------------------------------------------------------------------------------------
# The groups. Each gets the adapter (already probed), the settings and the recorder.


def group_startup(adapter: Adapter, settings: Settings, rec: Recorder, import_ns: int) -> None:
    rec.workloads["import_ms"] = {"value": import_ns / 1e6}

    def cold() -> dict[str, float]:
        start = time.perf_counter_ns()
        session = adapter.create()
        out = adapter.execute(session, "print(1)")
        elapsed = time.perf_counter_ns() - start
        assert str(out).strip() == "1", f"print(1) returned {out!r}"
        adapter.shutdown(session)
        return {"cold_start_ms": elapsed / 1e6}

    rec.record(["cold_start_ms"], cold)

    def new_sessions() -> dict[str, float]:
        # Each fresh session is started and returns print(1) (timed), then its first import is timed: the
        # median over the sessions, as a single sample right after start-up mostly measures how long the
        # machine had been idle. For exec the modules are already in the host's sys.modules: a dict lookup.
        starts, imports = [], []
        for _ in range(settings.startup_sessions):
            start = time.perf_counter_ns()
            session = adapter.create()
            adapter.execute(session, "print(1)")
            starts.append(time.perf_counter_ns() - start)
            imports.append(timed_ns(lambda: adapter.execute(session, "import json, re")))
            adapter.shutdown(session)
        return {"new_session_ms": median_ms(starts), "first_import_ms": median_ms(imports)}

    rec.record(["new_session_ms", "first_import_ms"], new_sessions)

    def tool_session_starts(pace_s: float) -> float:
        # RLM makes a fresh interpreter for every forward(), always with its tools, a model call apart (seconds):
        # back to back (pace 0), each session is asked for while the last one's processes are still being let
        # go and the next prepared. PACE_S keeps the paced loop short.
        starts = []
        for _ in range(settings.startup_sessions):
            time.sleep(pace_s)
            start = time.perf_counter_ns()
            session = adapter.create(RLM_TOOLS)
            adapter.execute(session, "print(1)")
            starts.append(time.perf_counter_ns() - start)
            adapter.shutdown(session)
        return median_ms(starts)

    rec.record(["tools_session_ms"], lambda: {"tools_session_ms": tool_session_starts(0.0)})
    rec.record(["tools_session_paced_ms"], lambda: {"tools_session_paced_ms": tool_session_starts(PACE_S)})

    def package_sessions() -> dict[str, float]:
        # The first session of a set pays the import once per process (for this project: a prepared process
        # that imported the set is forked from the zygote); every later session finds it imported.
        start = time.perf_counter_ns()
        session = adapter.create_with_packages(BENCH_PACKAGES)
        adapter.execute(session, "import sympy")
        first = time.perf_counter_ns() - start
        adapter.shutdown(session)
        starts = []
        for _ in range(settings.startup_sessions):
            start = time.perf_counter_ns()
            session = adapter.create_with_packages(BENCH_PACKAGES)
            out = adapter.execute(session, "import sympy; print(1)")
            starts.append(time.perf_counter_ns() - start)
            assert str(out).strip() == "1", f"print(1) returned {out!r}"
            adapter.shutdown(session)
        return {"package_first_ms": first / 1e6, "package_session_ms": median_ms(starts)}

    rec.record(["package_first_ms", "package_session_ms"], package_sessions)

    pool = adapter.pool()
    if pool is not None:

        def pooled() -> dict[str, float]:
            checkouts, imports = [], []
            for _ in range(settings.startup_sessions):
                pool.wait_ready()  # what a pool is for: the sandbox was built before anyone asked
                start = time.perf_counter_ns()
                session = pool.checkout()
                adapter.execute(session, "print(1)")
                checkouts.append(time.perf_counter_ns() - start)
                imports.append(timed_ns(lambda: adapter.execute(session, "import json, re")))
                session.shutdown()
            pool.close()
            return {"pool_checkout_ms": median_ms(checkouts), "pool_first_import_ms": median_ms(imports)}

        rec.record(["pool_checkout_ms", "pool_first_import_ms"], pooled)


def group_main(adapter: Adapter, settings: Settings, rec: Recorder) -> None:
    peak = PeakTracker()

    def in_session(measure: Callable[[Any], dict[str, float]], tools: dict | None = None) -> Callable[[], dict]:
        def run() -> dict[str, float]:
            session = adapter.create(tools)
            try:
                adapter.execute(session, "print(1)")  # started and warm before anything is timed
                return measure(session)
            finally:
                peak.sample()
                adapter.shutdown(session)

        return run

    def warm(session: Any) -> dict[str, float]:
        adapter.execute(session, "x = 0")
        for _ in range(settings.warm_warmup):
            adapter.execute(session, "x = x + 1")
        samples = [timed_ns(lambda: adapter.execute(session, "x = x + 1")) for _ in range(settings.warm_iterations)]
        return {"warm_median_us": statistics.median(samples) / 1e3, "warm_p99_us": percentile(samples, 0.99) / 1e3}

    rec.record(["warm_median_us", "warm_p99_us"], in_session(warm))

    def repeated(setup: str, code: str, key: str) -> Callable[[Any], dict[str, list[int]]]:
        def measure(session: Any) -> dict[str, list[int]]:
            if setup:
                adapter.execute(session, setup)
            adapter.execute(session, code)  # warm-up
            return {key: [timed_ns(lambda: adapter.execute(session, code)) for _ in range(settings.compute_repeats)]}

        return measure

    def compute(measure: Callable[[Any], dict[str, list[int]]]) -> Callable[[], dict[str, float]]:
        return pooled(settings.compute_sessions, in_session(measure))

    rec.record(["sum_ms"], compute(repeated("", "s = sum(i*i for i in range(10**6))", "sum_ms")))
    fib = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    rec.record(["fib_ms"], compute(repeated(fib, "r = fib(24)", "fib_ms")))

    text = make_text(1_000_000)
    # A plain dict loop rather than collections.Counter: every implementation supports it.
    wordcount = "counts = {}\nfor w in text.split():\n    counts[w] = counts.get(w, 0) + 1\nn = len(counts)\n"

    def word_count(session: Any) -> dict[str, list[int]]:
        adapter.execute(session, "n = len(text)", variables={"text": text})  # in the namespace, untimed
        return repeated("", wordcount, "wordcount_ms")(session)

    rec.record(["wordcount_ms"], compute(word_count))

    calls = settings.tool_calls
    loop = f"for i in range({calls}):\n    echo(x=i)\n"

    def tool_calls(session: Any) -> dict[str, float]:
        adapter.execute(session, "for i in range(10):\n    echo(x=i)\n")  # warm-up of the tool path
        samples = [timed_ns(lambda: adapter.execute(session, loop)) for _ in range(settings.tool_repeats)]
        return {"tool_call_us": statistics.median(samples) / 1e3 / calls}

    rec.record(["tool_call_us"], in_session(tool_calls, tools={"echo": echo}))

    # Fan-out: the code a model writes to wait on several slow calls at once (top-level await, asyncio.gather).
    gather = "import asyncio\nr = await asyncio.gather(*(pause(0.05) for _ in range(8)))\nlen(r)"

    def gathered(session: Any) -> dict[str, float]:
        assert str(adapter.execute(session, gather)).strip() == "8"  # warm-up, and the calls all came back
        samples = [timed_ns(lambda: adapter.execute(session, gather)) for _ in range(settings.compute_repeats)]
        return {"gather_ms": median_ms(samples)}

    rec.record(["gather_ms"], in_session(gathered, tools={"pause": pause}))

    doc = make_text(10_000_000)

    def injection() -> dict[str, float]:
        firsts, agains = [], []
        for _ in range(settings.inject_sessions):

            def measure(session: Any) -> dict[str, float]:
                out: list[Any] = []
                firsts.append(timed_ns(lambda: out.append(adapter.execute(session, "len(doc)", {"doc": doc}))))
                for _ in range(settings.reinject_repeats):
                    agains.append(timed_ns(lambda: out.append(adapter.execute(session, "len(doc)", {"doc": doc}))))
                assert all(str(o).strip() in ("10000000", "") for o in out), f"len(doc) returned {out[0]!r}"
                return {}

            in_session(measure)()
        return {"inject_first_ms": median_ms(firsts), "reinject_ms": median_ms(agains)}

    rec.record(["inject_first_ms", "reinject_ms"], injection)
    peak.sample()
    rec.workloads["peak_rss_mb"] = {"value": peak.peak_mb()}


def group_memory(adapter: Adapter, settings: Settings, rec: Recorder) -> None:
    def per_interpreter() -> dict[str, float]:
        first = adapter.create()
        adapter.execute(first, "x = 1")
        gc.collect()
        time.sleep(0.2)  # let worker processes and threads settle before reading RSS
        before = tree_rss_kb()
        extra = []
        for _ in range(settings.extra_interpreters):
            session = adapter.create()
            adapter.execute(session, "x = 1")
            extra.append(session)
        gc.collect()
        time.sleep(0.2)
        after = tree_rss_kb()
        for session in [first, *extra]:
            adapter.shutdown(session)
        return {"rss_per_interp_mb": (after - before) / 1024 / settings.extra_interpreters}

    rec.record(["rss_per_interp_mb"], per_interpreter)


SCALING_CODE = "s = sum(i*i for i in range(3*10**5))"


def runs_in_window(adapter: Adapter, session: Any, start: float, window_s: float) -> float:
    """Runs of SCALING_CODE completed between ``start`` and ``start + window_s`` (perf_counter seconds), the run
    in progress at the end counted by the part of it inside the window. A fixed time rather than a fixed number
    of runs: a thread that gets a slower core must not leave the other finishing alone at the end."""
    deadline = start + window_s
    time.sleep(max(0.0, start - time.perf_counter()))
    done = 0.0
    while True:
        began = time.perf_counter()
        adapter.execute(session, SCALING_CODE)
        ended = time.perf_counter()
        if ended <= deadline:
            done += 1
        else:
            return done + max(0.0, deadline - began) / (ended - began)


class ScalingProcesses:
    """The control: sessions of the same implementation in separate processes (``--scaling-worker``), which
    share nothing in memory. Two of them against one show how far this machine lets the workload scale."""

    def __init__(self, impl: str, count: int) -> None:
        command = [sys.executable, os.path.abspath(__file__), "--impl", impl, "--scaling-worker"]
        self.children = [
            subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1) for _ in range(count)
        ]
        for child in self.children:
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a --scaling-worker child did not start (status {child.wait()})")

    def throughput(self, processes: int, window_s: float) -> float:
        start = time.perf_counter() + 0.05  # CLOCK_MONOTONIC: the same clock in every process
        chosen = self.children[:processes]
        for child in chosen:
            child.stdin.write(f"{start!r} {window_s!r}\n")
        return sum(float(child.stdout.readline()) for child in chosen) / window_s

    def close(self) -> None:
        for child in self.children:
            child.stdin.close()
        for child in self.children:
            child.wait(timeout=60)


def scaling_worker(impl: str) -> None:
    """``--scaling-worker``: one warmed session; for each line ``start window`` on stdin, the runs it completed."""
    adapter = ADAPTERS[impl]()
    reason = adapter.probe()
    if reason:
        raise SystemExit(reason)
    session = adapter.create()
    adapter.execute(session, SCALING_CODE)
    print("ready", flush=True)
    for line in sys.stdin:
        start, window_s = map(float, line.split())
        print(runs_in_window(adapter, session, start, window_s), flush=True)
    adapter.shutdown(session)


def group_scaling(adapter: Adapter, settings: Settings, rec: Recorder) -> None:
    def threads_throughput(sessions: list[Any], threads: int, window_s: float) -> float:
        start = time.perf_counter() + 0.05
        done = [0.0] * threads
        errors: list[BaseException] = []

        def worker(index: int) -> None:
            try:
                done[index] = runs_in_window(adapter, sessions[index], start, window_s)
            except BaseException as exc:  # noqa: BLE001 - re-raised on the main thread
                errors.append(exc)

        pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        if errors:
            raise errors[0]
        return sum(done) / window_s

    def scaling() -> dict[str, float]:
        # This VM's cores are shared with other tenants: the speed of one core moves by up to 2x from one
        # second to the next. So the four measurements of a round follow each other within seconds (their
        # order rotating), each figure is the median over rounds of the ratio within a round, and the same
        # implementation in two processes, which share nothing, says how much scaling the machine allowed.
        sessions = [adapter.create() for _ in range(2)]
        processes = ScalingProcesses(adapter.name, 2)
        try:
            for session in sessions:
                adapter.execute(session, SCALING_CODE)  # warm-up
            window = settings.scaling_window_s
            measure = {
                "1t": lambda: threads_throughput(sessions, 1, window),
                "2t": lambda: threads_throughput(sessions, 2, window),
                "1p": lambda: processes.throughput(1, window),
                "2p": lambda: processes.throughput(2, window),
            }
            rounds: list[dict[str, float]] = []
            order = list(measure)
            for index in range(settings.scaling_rounds):
                shift = index % len(order)
                rounds.append({key: measure[key]() for key in order[shift:] + order[:shift]})
        finally:
            processes.close()
            for session in sessions:
                adapter.shutdown(session)

        def median(of: Callable[[dict[str, float]], float]) -> float:
            return statistics.median(of(r) for r in rounds)

        def spread(numerator: str, denominator: str) -> str:
            ratios = [r[numerator] / r[denominator] for r in rounds]
            return f"{min(ratios):.2f}-{max(ratios):.2f}"

        return {
            "note": f"{len(rounds)} rounds of {settings.scaling_window_s} s windows; per round, 2 threads / 1 thread "
            f"{spread('2t', '1t')}, 2 processes / 1 process {spread('2p', '1p')}",
            "scaling_1t_per_s": median(lambda r: r["1t"]),
            "scaling_2t_per_s": median(lambda r: r["2t"]),
            "scaling_ratio": median(lambda r: r["2t"] / r["1t"]),
            "scaling_process_ratio": median(lambda r: r["2p"] / r["1p"]),
            "scaling_threads_vs_processes": median(lambda r: r["2t"] / r["2p"]),
        }

    rec.record(
        ["scaling_1t_per_s", "scaling_2t_per_s", "scaling_ratio", "scaling_process_ratio", "scaling_threads_vs_processes"],
        scaling,
    )


# The leak workload stops early once the process has grown this much: on a shared machine an unbounded leak
# of a few MB per cycle over 2,000 cycles would take gigabytes from everyone else.
LEAK_RSS_CAP_KB = 3 * 1024 * 1024


def group_leak(adapter: Adapter, settings: Settings, rec: Recorder) -> None:
    def cycle() -> None:
        session = adapter.create()
        adapter.execute(session, "import json, re")
        adapter.shutdown(session)

    def leak() -> dict[str, Any]:
        for _ in range(settings.leak_warmup):  # allocator pools and caches reach their working size first
            cycle()
        gc.collect()
        before = tree_rss_kb()
        done = 0
        while done < settings.leak_cycles:
            cycle()
            done += 1
            if done % 50 == 0 and tree_rss_kb() - before > LEAK_RSS_CAP_KB:
                break
        gc.collect()
        time.sleep(0.2)
        growth_kb = tree_rss_kb() - before
        note = f"K = {done} cycles"
        if done < settings.leak_cycles:
            note += f", stopped early of {settings.leak_cycles}: RSS grew past the {LEAK_RSS_CAP_KB // 1024} MB cap"
        return {"leak_total_mb": growth_kb / 1024, "leak_kb_per_cycle": growth_kb / done, "note": note}

    rec.record(["leak_total_mb", "leak_kb_per_cycle"], leak)


# The code models write over long inputs (issue 15), beside sum/fib/word count in the main group. Each input is
# in the namespace before anything is timed.
CPU_CODE = {
    "sorted_ms": ("", "ys = sorted(floats)"),
    "grep_ms": ("", "n = sum(1 for line in lines.splitlines() if 'fox' in line.lower())"),
    "regex_ms": ("import re", "found = re.findall(r'\\b\\w+ing\\b|\\d+', text)"),
    "json_ms": ("import json", "back = json.loads(json.dumps(document))"),
    "classes_ms": (
        "class Point:\n"
        "    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n"
        "    def moved(self, dx):\n        return Point(self.x + dx, self.y)\n"
        "    def norm2(self):\n        return self.x * self.x + self.y * self.y\n",
        "total = 0\nfor i in range(100000):\n    p = Point(i, i % 7).moved(1)\n    total += p.norm2()",
    ),
    "strbuild_ms": (
        "",
        "parts = []\nfor i in range(200000):\n    parts.append(f'{i}:{i * i};')\ns = ''.join(parts)\n"
        "t = ''\nfor i in range(20000):\n    t += str(i)",
    ),
}


def cpu_inputs() -> dict[str, Any]:
    import random

    rng = random.Random(15)
    words = WORDS + ["running", "parsing", "sing", "thing", "2026", "42"]
    lines = "\n".join(" ".join(rng.choice(words) for _ in range(9)) for _ in range(26_000))
    document = {
        f"k{i}": {"id": i, "name": f"item {i}", "tags": ["a", "b", str(i)], "score": i / 7, "ok": i % 2 == 0}
        for i in range(9_000)
    }
    return {"floats": [rng.random() for _ in range(200_000)], "lines": lines, "text": make_text(1_000_000), "document": document}


def group_cpu(adapter: Adapter, settings: Settings, rec: Recorder) -> None:
    inputs = cpu_inputs()
    for key, (setup, code) in CPU_CODE.items():

        def measure(key: str = key, setup: str = setup, code: str = code) -> dict[str, list[int]]:
            session = adapter.create(None)
            try:
                adapter.execute(session, "n = 0", variables=inputs)  # the inputs, untimed
                if setup:
                    adapter.execute(session, setup)
                adapter.execute(session, code)  # warm-up
                return {key: [timed_ns(lambda: adapter.execute(session, code)) for _ in range(settings.compute_repeats)]}
            finally:
                adapter.shutdown(session)

        rec.record([key], pooled(settings.compute_sessions, measure))


LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]
USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]


def make_log(size: int) -> str:
    """A deterministic service log of about ``size`` characters (whole lines), the kind of context RLM is given."""
    import random

    rng = random.Random(30)
    lines, total, n = [], 0, 0
    while total < size:
        day = 1 + n % 28
        line = (
            f"2026-11-{day:02d}T{n % 24:02d}:{n % 60:02d}:{(n * 7) % 60:02d} {rng.choice(LEVELS)} "
            f"INC-{rng.randrange(100000):05d} user={rng.choice(USERS)} "
            + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 14)))
        )
        lines.append(line)
        total += len(line) + 1
        n += 1
    return "\n".join(lines)


def text_inputs(size: int) -> dict[str, Any]:
    import json

    context = make_log(size)
    records = [
        {"line": i, "level": line.split(" ", 2)[1], "text": line[-40:]}
        for i, line in enumerate(context.splitlines()[: size // 200])
    ]
    return {"context": context, "records_json": json.dumps(records)}


def group_text(adapter: Adapter, settings: Settings, rec: Recorder) -> None:
    for size_name, size in settings.text_sizes:
        inputs = text_inputs(size)
        repeats = settings.text_repeats if size <= 1 << 21 else max(1, settings.text_repeats // 2)
        for key, (_label, setup, code) in TEXT_CODE.items():
            name = f"text_{key}_{size_name}_ms"

            def measure(setup: str = setup, code: str = code, name: str = name) -> dict[str, float]:
                session = adapter.create(None)
                try:
                    adapter.execute(session, "n = 0", variables=inputs)  # the context, untimed
                    if setup:
                        adapter.execute(session, setup)
                    adapter.execute(session, code)  # warm-up
                    return {name: min(timed_ns(lambda: adapter.execute(session, code)) for _ in range(repeats)) / 1e6}
                finally:
                    adapter.shutdown(session)

            rec.record([name], measure)


def run_group(impl: str, group: str, quick: bool) -> dict[str, Any]:
    settings = QUICK if quick else FULL
    adapter = ADAPTERS[impl]()
    rec = Recorder()
    start = time.perf_counter_ns()
    try:
        reason = adapter.probe()
    except Exception as exc:  # noqa: BLE001 - an implementation that cannot be imported is skipped
        reason = f"{type(exc).__name__}: {exc}"
    import_ns = time.perf_counter_ns() - start
    result: dict[str, Any] = {"impl": impl, "group": group, "skipped": reason, "workloads": rec.workloads}
    if reason:
        return result
    if group == "startup":
        group_startup(adapter, settings, rec, import_ns)
    elif group == "main":
        group_main(adapter, settings, rec)
    elif group == "cpu":
        group_cpu(adapter, settings, rec)
    elif group == "memory":
        group_memory(adapter, settings, rec)
    elif group == "scaling":
        group_scaling(adapter, settings, rec)
    elif group == "leak":
        group_leak(adapter, settings, rec)
    elif group == "text":
        group_text(adapter, settings, rec)
    else:
        raise SystemExit(f"unknown group {group!r}; the groups are {GROUPS}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", required=True, choices=sorted(ADAPTERS))
    parser.add_argument("--group", choices=GROUPS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scaling-worker", action="store_true", help="serve the scaling group's process control")
    args = parser.parse_args()
    if args.scaling_worker:
        scaling_worker(args.impl)
        return
    if args.group is None:
        parser.error("--group is required")
    # Only the JSON goes to the real stdout; whatever an implementation prints goes to stderr.
    real_stdout = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    result = run_group(args.impl, args.group, args.quick)
    import json

    real_stdout.write(json.dumps(result) + "\n")
    real_stdout.flush()


if __name__ == "__main__":
    main()
