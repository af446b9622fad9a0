"""Tracebacks read as CPython's: each frame of a cell shows its source line and, under it, CPython's markers of
the failing expression. The same cells run in the reference CPython (compiled as ``<cell N>``, their lines in
``linecache``) and in a sandbox; the frames of the two tracebacks must be the same text."""

from __future__ import annotations

import json

import pytest
from cpython import readable_diff, reference_python

from dspy_rust_interpreter import CodeExecutionError

# name -> cells; the last one fails.
CELLS = {
    "binary-operator-in-a-function": ["def f(x):\n    return x[0] + 1\n", "y = 2\nf(['a'])"],
    "subscript": ["def g(d):\n    return d['missing']\n", "g({})"],
    "call-of-a-builtin": ["len()"],
    "name-in-an-expression": ["x = undefined_name + 1"],
    "attribute": ["class A:\n    pass\n", "value = A().missing.upper()"],
    "whole-line-has-no-markers": ["def h():\n    raise ValueError('no')\n", "h()"],
    "division-in-a-comprehension": ["values = [1, 0]\nratios = [10 / v for v in values]"],
    "method-call-with-arguments": ["text = 'a,b'\nparts = text.split(',', 'x')"],
    "nested-calls": ["def inner(n):\n    return 10 // n\n\ndef outer(n):\n    return inner(n - 1) * 2\n", "total = outer(1) + 5"],
}

# Runs the cells in CPython and prints the frames of the traceback below the runner's own frame.
CPYTHON_RUNNER = """
import json, linecache, sys, traceback
cells = json.loads(sys.argv[1])
namespace = {"__name__": "__main__"}
try:
    for number, source in enumerate(cells, 1):
        name = f"<cell {number}>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        exec(compile(source, name, "exec"), namespace)
except Exception as error:
    print("".join(traceback.format_tb(error.__traceback__.tb_next)).rstrip())
"""


def cpython_frames(cells: list[str], python: str) -> str:
    import subprocess

    done = subprocess.run([python, "-c", CPYTHON_RUNNER, json.dumps(cells)], capture_output=True, text=True, check=True)
    return done.stdout.rstrip()


@pytest.fixture(scope="module")
def reference() -> str:
    return reference_python()


@pytest.mark.parametrize("name", list(CELLS))
def test_traceback_frames_are_cpythons(make_interp, reference, name):
    cells = CELLS[name]
    interp = make_interp()
    for cell in cells[:-1]:
        interp.execute(cell)
    with pytest.raises(CodeExecutionError) as info:
        interp.execute(cells[-1])
    header = "Traceback (most recent call last):\n"
    assert info.value.traceback.startswith(header)
    actual = info.value.traceback[len(header) :]
    expected = cpython_frames(cells, reference)
    assert actual == expected, readable_diff(expected, actual)
