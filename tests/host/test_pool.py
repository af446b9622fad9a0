"""InterpreterPool: ready interpreters, bounded checkout, the factory for dspy, and no trace of one user left
for the next (a returned interpreter is replaced, never reused)."""

from __future__ import annotations

import threading
import time

import pytest

from dspy_rust_interpreter import CodeInterpreterError, InterpreterPool, PoolExhaustedError, RustInterpreter


@pytest.fixture
def pool():
    with InterpreterPool(size=2, timeout=1.0) as pool:
        yield pool


def test_a_checked_out_interpreter_runs_code_and_keeps_state(pool):
    with pool.interpreter() as interp:
        assert isinstance(interp, RustInterpreter)
        interp.execute("x = 41")
        assert interp.execute("x + 1") == 42


def test_checked_out_interpreters_use_the_pool_options(pool):
    with pool.interpreter() as interp:
        with pytest.raises(Exception, match="TimeoutError"):
            interp.execute("while True:\n    pass")


def test_tools_are_given_per_checkout(pool):
    with pool.interpreter(tools={"double": lambda n: 2 * n}) as interp:
        assert interp.execute("double(21)") == 42
    with pool.interpreter() as interp:
        with pytest.raises(Exception, match="NameError"):
            interp.execute("double(21)")


def test_a_checkout_when_all_are_out_waits_then_fails_clearly(pool):
    first, second = pool.checkout(), pool.checkout()
    started = time.perf_counter()
    with pytest.raises(PoolExhaustedError, match="all 2 pooled interpreters are in use"):
        pool.checkout(timeout=0.2)
    assert time.perf_counter() - started >= 0.2
    first.shutdown()
    second.shutdown()


def test_a_waiting_checkout_gets_the_interpreter_another_thread_returns(pool):
    held = [pool.checkout(), pool.checkout()]
    threading.Timer(0.2, held[0].shutdown).start()
    with pool.interpreter(timeout=10.0) as interp:
        assert interp.execute("1 + 1") == 2
    held[1].shutdown()


def test_shutdown_twice_returns_the_slot_once(pool):
    interp = pool.checkout()
    interp.shutdown()
    interp.shutdown()
    a, b = pool.checkout(), pool.checkout()
    with pytest.raises(PoolExhaustedError):
        pool.checkout(timeout=0.1)
    a.shutdown()
    b.shutdown()


def test_the_factory_is_a_plain_zero_argument_callable(pool):
    factory = pool.factory
    interp = factory()
    assert not isinstance(factory, RustInterpreter)
    assert interp.execute("6 * 7") == 42
    interp.shutdown()
    with pytest.raises(CodeInterpreterError, match="shut down"):
        interp.execute("1")


def test_a_closed_pool_refuses_checkouts_but_lets_out_interpreters_finish():
    pool = InterpreterPool(size=1)
    interp = pool.checkout()
    pool.close()
    assert interp.execute("2 + 2") == 4
    interp.shutdown()
    with pytest.raises(CodeInterpreterError, match="closed"):
        pool.checkout()


def test_bad_sizes_and_options_are_refused():
    with pytest.raises(ValueError, match="size"):
        InterpreterPool(size=0)
    with pytest.raises((TypeError, ValueError), match="no_such_option"):
        InterpreterPool(size=1, no_such_option=1)


# Every place sandbox code can leave a trace, and how the next user would look for it. The pool replaces a
# returned interpreter, so every probe must see a fresh session.
TRACES = [
    ("a global", "left = 'trace'", "'left' in globals()", False),
    ("sys.modules", "import sys\nsys.modules['planted'] = sys", "import sys\n'planted' in sys.modules", False),
    ("a stdlib module attribute", "import json\njson.planted = 1", "import json\nhasattr(json, 'planted')", False),
    ("a replaced stdlib function", "import json\njson.dumps = lambda *a, **k: 'planted'", "import json\njson.dumps([1])", "[1]"),
    (
        "builtins",
        "import builtins\nbuiltins.planted = 1\nbuiltins.len = lambda x: -1",
        "import builtins\n(hasattr(builtins, 'planted'), len([1, 2]))",
        (False, 2),
    ),
    (
        "a stdlib class attribute",
        "import collections\ncollections.OrderedDict.planted = 1",
        "import collections\nhasattr(collections.OrderedDict, 'planted')",
        False,
    ),
    (
        "an lru_cache on a stdlib function",
        "import re\nre.compile('planted.*')\nimport functools\nfunctools.planted = functools.lru_cache(None)(lambda: 1)",
        "import re, functools\n(hasattr(functools, 'planted'), any('planted' in str(k) for k in getattr(re, '_cache', {})))",
        (False, False),
    ),
    (
        "random state",
        "import random\nrandom.seed(1234)",
        "import random\nrandom.seed(1234)\na = random.random()\nrandom.seed()\na == random.random()",
        False,
    ),
    ("the recursion limit", "import sys\nsys.setrecursionlimit(60)", "import sys\nsys.getrecursionlimit()", 1000),
    ("an exception class attribute", "ValueError.planted = 1", "hasattr(ValueError, 'planted')", False),
    (
        "a subclass of a built-in type",
        "class Planted(dict):\n    pass\nkeep = Planted()",
        "any(c.__name__ == 'Planted' for c in dict.__subclasses__())",
        False,
    ),
    (
        "the warnings filters",
        "import warnings\nwarnings.simplefilter('error')",
        "import warnings\nlen([f for f in warnings.filters if f[0] == 'error'])",
        0,
    ),
    ("sys.stdout", "import sys\nclass W:\n    def write(self, s):\n        pass\nsys.stdout = W()", "print('seen')", "seen\n"),
    (
        "the csv dialect registry",
        "import csv\ncsv.register_dialect('planted', delimiter=';')",
        "import csv\n'planted' in csv.list_dialects()",
        False,
    ),
    ("the csv field size limit", "import csv\ncsv.field_size_limit(7)", "import csv\ncsv.field_size_limit()", 131072),
]


@pytest.mark.parametrize(("place", "leave", "probe", "fresh"), TRACES, ids=[t[0] for t in TRACES])
def test_nothing_a_user_leaves_reaches_the_next_user(place, leave, probe, fresh):
    with InterpreterPool(size=1) as pool:
        with pool.interpreter(tools={"secret_tool": lambda: "secret"}) as first:
            try:
                first.execute(leave)
            except Exception:
                pass  # a refused attempt leaves no trace either
        with pool.interpreter() as second:
            assert second.execute(probe) == fresh, f"{place}: the next user saw a trace"
            with pytest.raises(Exception, match="NameError"):
                second.execute("secret_tool()")


def test_pooled_interpreters_have_the_default_modules_preloaded(pool):
    with pool.interpreter() as interp:
        assert interp.execute("import sys\nsorted(m for m in ('re', 'json', 'math') if m in sys.modules)") == [
            "json",
            "math",
            "re",
        ]


def test_pool_preload_can_be_turned_off():
    with InterpreterPool(size=1, preload=()) as pool, pool.interpreter() as interp:
        assert interp.execute("import sys\n'difflib' in sys.modules") is False


EXIT_SCRIPTS = {
    "a pool still building its sandboxes": "with InterpreterPool(2): pass",
    "a pool never closed, one interpreter out": "pool = InterpreterPool(3)\ninterp = pool.checkout()\ninterp.execute('x = 1')",
    "an interpreter never shut down": "interp = RustInterpreter()\ninterp.execute('x = 1')",
}


@pytest.mark.parametrize("script", EXIT_SCRIPTS.values(), ids=EXIT_SCRIPTS.keys())
def test_the_process_exits_cleanly_with_sandboxes_still_open(script):
    # Worker threads still running at exit must be finished before CPython finalises (an abort, before).
    import subprocess
    import sys

    code = "from dspy_rust_interpreter import InterpreterPool, RustInterpreter\n" + script
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "panicked" not in done.stderr, done.stderr[-2000:]


def test_the_factory_carries_the_interpreters_execution_instructions(pool):
    assert pool.factory.execution_instructions == RustInterpreter.execution_instructions


def test_ready_count_says_how_many_sandboxes_wait(pool):
    deadline = time.monotonic() + 30
    while pool.ready_count() < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.ready_count() == 2
    with pool.interpreter():
        assert pool.ready_count() <= 1
