"""Automatic collections at the VM's safe points (`src/sandbox/vm/gc.rs`): a finalizer an automatic collection runs
never runs inside a native operation that holds a lock on what the finalizer touches."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from dspy_rust_interpreter import RustInterpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "fuzz"))
import fuzz_callbacks  # noqa: E402


def test_finalizers_of_automatic_collections_cannot_break_a_native_operation():
    # Found by fuzz/fuzz_callbacks.py (seed 11): with `gc.set_threshold(1)` and finalizers that re-arm themselves
    # and grow a list, three programs in one session ended its process: RustPython collected inline, at an
    # allocation inside `list.extend`, whose lock the finalizer's own `extend` then found held (a panic).
    rng = random.Random(11)
    programs = [fuzz_callbacks.program(rng) for _ in range(232)]
    interp = RustInterpreter(timeout=5.0)
    try:
        for index in (215, 219, 231):
            try:
                interp.execute(programs[index])
            except Exception as error:  # noqa: BLE001 - only a crash is the failure here
                assert "the sandbox's process" not in str(error), (index, str(error)[:500])
        assert interp.execute("21 * 2") == 42
    finally:
        interp.shutdown()


def test_cycles_are_collected_while_a_cell_runs_and_the_thresholds_are_the_codes(interp):
    # Collections still happen during a long cell (the youngest generation's, at its threshold), and the
    # thresholds the code sets are the ones it reads back, as in CPython.
    printed = interp.execute(
        "import gc\n"
        "print(gc.get_threshold()[0] > 0, gc.isenabled())\n"
        "class Node:\n    pass\n"
        "before = gc.get_stats()[0]['collected']\n"
        "for _ in range(300_000):\n    node = Node(); node.me = node\n"
        "print(gc.get_stats()[0]['collected'] - before > 250_000)\n"
        "gc.set_threshold(5, 3)\n"
        "print(gc.get_threshold()[:2])\n"
        "gc.disable()\n"
        "before = gc.get_stats()[0]['collections']\n"
        "for _ in range(50_000):\n    node = Node(); node.me = node\n"
        "print(gc.get_stats()[0]['collections'] == before, gc.collect() > 0)\n"
        "gc.enable()\n"
    )
    assert printed == "True True\nTrue\n(5, 3)\nTrue True\n"
