"""The sandbox's virtual filesystem behaves as CPython's real one: every program in cases/ runs in CPython (a
child process, in a fresh empty temporary directory) and in a fresh sandbox (in a fresh empty /case), and what
they print must be the same.

Conventions for a case (one small program per file, named by what it tests):
- it starts in an empty current directory and uses relative paths (temp files may be absolute, never printed);
- its output is deterministic: listings are sorted, and it prints no times, inode numbers, object ids,
  addresses or reprs of file objects; errors are printed as type name, errno, strerror and filename, or str();
- the current directory may be printed (os.getcwd(), abspath): CPython's temporary directory is replaced by
  /case, the sandbox's starting directory, before comparing;
- its last statement is not an expression with a value (the sandbox would append that value's repr).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from cpython import cpython_output, readable_diff

from dspy_rust_interpreter import CodeExecutionError

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES.glob("*.py"))
SANDBOX_CASE_DIR = "/case"
# The sandbox's own start: an empty /case to run in (execute() returns None: nothing printed, no value).
SANDBOX_SETUP = f"import os\nos.makedirs({SANDBOX_CASE_DIR!r})\nos.chdir({SANDBOX_CASE_DIR!r})"
# A big case (1 MiB file, 500 files) on a loaded two-core machine needs more than the default 30 s.
SANDBOX_TIMEOUT = 120.0


def cpython_case_output(source: str) -> str:
    """What CPython prints running ``source`` in a fresh empty directory, that directory shown as /case."""
    workdir = tempfile.mkdtemp(prefix="files-case-")
    try:
        output = cpython_output(source, cwd=workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for spelling in {os.path.realpath(workdir), workdir}:
        output = output.replace(spelling, SANDBOX_CASE_DIR)
    return output


def sandbox_output(make_interp, source: str) -> str:
    interp = make_interp(timeout=SANDBOX_TIMEOUT)
    assert interp.execute(SANDBOX_SETUP) is None
    try:
        result = interp.execute(source)
    except CodeExecutionError as error:
        pytest.fail(f"the case raised in the sandbox:\n{error}", pytrace=False)
    assert result is None or isinstance(result, str), f"execute() returned {type(result).__name__}: {result!r}"
    return result or ""


@pytest.mark.parametrize("case", CASE_FILES, ids=[path.stem for path in CASE_FILES])
def test_case_prints_what_cpython_prints(make_interp, case: Path):
    source = case.read_text(encoding="utf-8")
    expected = cpython_case_output(source).rstrip("\n")
    # The sandbox returns the printed text without its final newline(s).
    actual = sandbox_output(make_interp, source).rstrip("\n")
    assert actual == expected, f"{case.name}: sandbox output differs from CPython's\n{readable_diff(expected, actual)}"


def test_cases_exist():
    assert len(CASE_FILES) >= 80, CASE_FILES
