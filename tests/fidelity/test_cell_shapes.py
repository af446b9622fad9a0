"""Every shape of cell a model writes runs as in CPython: each kind of statement at the end of a cell and in
its middle, and random sequences of them, run in a fresh sandbox and in the reference CPython (as a REPL
runs a cell: its statements, then its trailing expression's repr), with what they print compared.

An annotated assignment followed by ``print(...)`` once failed in the sandbox with ``NameError:
__conditional_annotations__``: RustPython's block-expression compile mode left out a module's annotation
set-up. The sandbox now lends such a cell the annotation set it expects (worker/run.rs); with `from __future__
import annotations` it makes the module's `__annotations__` dict that set-up would have made.
"""

from __future__ import annotations

import random

import pytest
from cells import comparable, cpython_cells, in_sandbox
from cpython import readable_diff

# One statement (or a few that belong together) of every kind; each defines or prints something, and none
# reads the clock, ids or addresses.
STATEMENTS = {
    "annotated_with_value": "count: int = 3",
    "annotated_without_value": "later: list[str]",
    "annotated_attribute": "class Box:\n    pass\nbox = Box()\nbox.size: int = 4",
    "conditional_annotation": "if True:\n    flag: bool = True",
    "assignment_chain": "a = b = 7",
    "augmented": "total = 0\ntotal += 5",
    "unpacking": "first, *rest = [1, 2, 3]",
    "walrus": "if (n := 10) > 5:\n    big = n",
    "global": "def bump():\n    global counter\n    counter = 1\nbump()",
    "delete": "temp = 1\ndel temp",
    "type_alias": "type Pair = tuple[int, int]",
    "decorator": "import functools\n@functools.lru_cache\ndef square(x):\n    return x * x",
    "class_with_annotations": "class Point:\n    x: int = 0\n    y: int = 0\n    label: str",
    "dataclass": "from dataclasses import dataclass\n@dataclass\nclass Item:\n    name: str\n    qty: int = 1",
    "match": "match [1, 2]:\n    case [x, y]:\n        matched = x + y\n    case _:\n        matched = 0",
    "for_else": "for i in range(3):\n    pass\nelse:\n    looped = i",
    "while": "k = 0\nwhile k < 3:\n    k += 1",
    "with": "import contextlib\nwith contextlib.suppress(ZeroDivisionError):\n    1 / 0",
    "try_finally": "try:\n    risky = int('x')\nexcept ValueError as e:\n    risky = str(e)\nfinally:\n    done = True",
    "try_star": "try:\n    raise ExceptionGroup('g', [ValueError('v')])\nexcept* ValueError as group:\n    caught = len(group.exceptions)",
    "async_def_and_await": "import asyncio\nasync def twice(x):\n    await asyncio.sleep(0)\n    return 2 * x\ndoubled = await twice(4)",
    "async_comprehension": "async def agen():\n    for i in range(3):\n        yield i\nsquares = [i * i async for i in agen()]",
    "lambda_and_comprehension": "double = lambda v: v * 2\nvalues = [double(v) for v in range(4) if v % 2]",
    "fstring": "name = 'ada'\ngreeting = f'{name!r:>8} {3.14159:.2f}'",
    "import_from": "from collections import Counter\nmost = Counter('hello').most_common(1)",
    "assert": "assert 1 + 1 == 2, 'maths'",
    "nonlocal": "def outer():\n    v = 1\n    def inner():\n        nonlocal v\n        v += 1\n    inner()\n    return v\nresult = outer()",
    "print": "print('hello', 3, sep='-')",
    "docstring_first": "'''a cell that starts with a string'''\nafter_doc = 1",
}

# What may follow a statement: a trailing expression (its value is reported), a print, or nothing.
ENDINGS = ["", "print('end')", "[1, 'two', 3.0]", "None", "x_ending = 1\nx_ending"]


def cells_of_every_shape() -> list[tuple[str, str]]:
    cells = []
    for name, statement in STATEMENTS.items():
        for index, ending in enumerate(ENDINGS):
            cells.append((f"{name}-at-end-{index}", statement if not ending else f"{statement}\n{ending}"))
        cells.append((f"{name}-in-middle", f"before = 1\n{statement}\nafter = 2\nprint(before, after)"))
    return cells


def random_cells(count: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    names = sorted(STATEMENTS)
    cells = []
    for i in range(count):
        chosen = [STATEMENTS[rng.choice(names)] for _ in range(rng.randint(2, 5))]
        cells.append((f"random-{seed}-{i}", "\n".join(chosen + [rng.choice(ENDINGS)]).rstrip("\n")))
    return cells


def compare(make_interp, cells: list[tuple[str, str]]) -> list[str]:
    expected = cpython_cells([source for _, source in cells], fresh=True)
    differences = []
    for (name, source), wanted in zip(cells, expected):
        got = in_sandbox(make_interp(), source)
        if comparable(got) != comparable(wanted):
            differences.append(f"{name}:\n{source}\n{readable_diff(wanted[1], got[1]) or (wanted, got)}")
    return differences


def test_every_statement_kind_at_the_end_and_in_the_middle_of_a_cell(make_interp):
    differences = compare(make_interp, cells_of_every_shape())
    assert not differences, "\n\n".join(differences)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_sequences_of_statements(make_interp, seed):
    differences = compare(make_interp, random_cells(40, seed))
    assert not differences, "\n\n".join(differences)


def test_module_annotations_under_the_future_import(make_interp):
    """`from __future__ import annotations` first, annotated names, then each ending: the module's
    `__annotations__` holds them as strings, as CPython's does."""
    start = "from __future__ import annotations\nsize: int = 2\nnames: list[str]\nprint(__annotations__)"
    cells = [(f"future-{index}", f"{start}\n{ending}".rstrip("\n")) for index, ending in enumerate(ENDINGS)]
    differences = compare(make_interp, cells)
    assert not differences, "\n\n".join(differences)
