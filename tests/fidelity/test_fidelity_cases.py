"""The sandbox behaves and speaks like CPython: every program in cases/ runs in the reference CPython (3.12+,
see ``cpython.reference_python``) and in a fresh sandbox, and what they print must be the same.

Conventions for a case (one small program per file, named by what it pins):
- what it prints is deterministic (no times, ids, addresses);
- an error is shown with ``show(lambda: ...)``-style helpers the case defines itself, as type name and
  message, so the message's wording is compared too;
- its last statement is not an expression with a value (the sandbox would append that value's repr).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cpython import cpython_output, readable_diff, reference_python

from dspy_rust_interpreter import CodeExecutionError

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES.glob("*.py"))


@pytest.fixture(scope="module")
def reference() -> str:
    return reference_python()


@pytest.mark.parametrize("case", CASE_FILES, ids=[path.stem for path in CASE_FILES])
def test_case_prints_what_cpython_prints(make_interp, reference, case: Path):
    source = case.read_text(encoding="utf-8")
    expected = cpython_output(source, python=reference).rstrip("\n")
    try:
        actual = (make_interp().execute(source) or "").rstrip("\n")
    except CodeExecutionError as error:
        pytest.fail(f"the case raised in the sandbox:\n{error}", pytrace=False)
    assert actual == expected, f"{case.name}: sandbox output differs from CPython's\n{readable_diff(expected, actual)}"
