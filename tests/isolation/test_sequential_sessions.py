"""Sessions one after the other in one host process: each has a process of its own, nothing of a session
reaches the next, the classes RustPython caches work in every session, and sessions leak nothing into the
host."""

from __future__ import annotations

import pytest
from isolated import run_isolated

from dspy_rust_interpreter import RustInterpreter


def run_in_sequence(*codes: str) -> list:
    """Run each code in a new session, one after the other."""
    results, processes = [], set()
    for code in codes:
        interp = RustInterpreter()
        results.append(interp.execute(code))
        processes.add(interp._session.pid)
        interp.shutdown()
    assert len(processes) == len(codes), "each session has a process of its own"
    return results


def test_consecutive_sessions_each_get_a_process_of_their_own():
    run_in_sequence("1", "2", "3")


def test_a_class_left_behind_is_not_visible_to_the_next_session():
    _, probe = run_in_sequence(
        "class LeftBehind(dict):\n    __slots__ = ('a',)\nkeep = [LeftBehind(), LeftBehind]\nclass Other:\n    pass\nother = Other",
        "names = {c.__name__ for c in object.__subclasses__()} | {c.__name__ for c in dict.__subclasses__()}\n"
        "sorted(n for n in names if n in ('LeftBehind', 'Other'))",
    )
    assert probe == []


def test_start_up_classes_of_an_earlier_session_are_not_visible():
    _, count = run_in_sequence("import json", "sum(c.__name__ == 'ModuleSpec' for c in object.__subclasses__())")
    assert count == 1  # this session's own


@pytest.mark.parametrize(
    "use",
    [
        "try:\n    raise ExceptionGroup('g', [ValueError(1)])\nexcept* ValueError as e:\n    r = len(e.exceptions)\nr",
        "import io\nissubclass(io.UnsupportedOperation, OSError) and len(io.UnsupportedOperation.__mro__)",
        "import struct\ntry:\n    struct.unpack('i', b'x')\nexcept struct.error as e:\n    r = type(e).__name__\nr",
        "import csv\nissubclass(csv.Error, Exception) and csv.Error.__name__",
    ],
    ids=["ExceptionGroup", "io.UnsupportedOperation", "struct.error", "csv.Error"],
)
def test_classes_kept_per_thread_work_in_every_session(use):
    first, second, third = run_in_sequence(use, use, use)
    assert first == second == third
    assert first not in (None, False)


def test_weak_references_a_session_left_on_built_in_types_do_not_reach_the_next():
    count = "import weakref\n(weakref.getweakrefcount(int), weakref.getweakrefcount(ExceptionGroup))"
    fresh, _, after = run_in_sequence(
        count,
        # A cycle through __slots__ (which the collector cannot see), holding weak references to kept types
        # whose callbacks close over the session's data.
        "import weakref\nsecret = 's3cr3t'\nclass S:\n    __slots__ = ('a', '__weakref__')\ns = S()\n"
        "s.a = [s, weakref.ref(int, lambda r: secret), weakref.ref(ExceptionGroup, lambda r: secret)]\n1",
        count,
    )
    assert after == fresh


def test_listing_the_weak_references_to_an_object_works_as_in_cpython(interp):
    # Refused while sessions shared worker threads (an earlier session's references to built-in types were
    # reachable that way); a session process holds only its own.
    assert interp.execute("import weakref\nclass C: pass\nc = C()\nr = weakref.ref(c)\nweakref.getweakrefs(c) == [r]") is True


def test_subclass_of_a_kept_class_does_not_reach_the_next_session():
    _, probe = run_in_sequence(
        "class Mine(ExceptionGroup):\n    pass\nkeep = Mine",
        "[c.__name__ for c in ExceptionGroup.__subclasses__()]",
    )
    assert "Mine" not in probe


LEAK_CYCLES = 500
# Issue 5's bound, proportionally: at most 20 MB over 10,000 create -> import -> shutdown cycles.
LEAK_BOUND_MB = 20 * LEAK_CYCLES / 10_000


# Under qemu-user a process's resident memory includes the translation cache it grows.
@pytest.mark.native_process
@pytest.mark.parametrize("through", ["RustInterpreter", "InterpreterPool"])
def test_create_import_shutdown_cycles_leak_nothing(through):
    results = run_isolated(
        f"""
        import os
        from dspy_rust_interpreter import InterpreterPool

        def rss_mb():
            return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20

        pool = InterpreterPool(size=1) if {through == "InterpreterPool"!r} else None

        def cycle():
            interp = pool.checkout() if pool else RustInterpreter()
            interp.execute("import json, re\\njson.dumps(re.findall('a+', 'aaa b aa'))")
            interp.shutdown()

        for _ in range(30):  # allocator pools and the thread's caches reach their working size
            cycle()
        start = rss_mb()
        for _ in range({LEAK_CYCLES}):
            cycle()
        results["growth_mb"] = rss_mb() - start
        """,
        timeout=600,
    )
    assert results["growth_mb"] <= LEAK_BOUND_MB, f"RSS grew {results['growth_mb']:.1f} MB over {LEAK_CYCLES} cycles"
