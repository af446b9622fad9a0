"""Running a program in real CPython, to compare what the sandbox prints with what CPython prints."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path

# The sandbox speaks Python 3.14, and CPython 3.14 is the reference (tools/reference_python.py makes it: `make
# reference-python`). REFERENCE_PYTHON names another, e.g. a 3.13 to compare with the CPython a user has.
TOOLS = Path(__file__).resolve().parent.parent / "tools"


def reference_python() -> str:
    named = os.environ.get("REFERENCE_PYTHON")
    if named:
        return named
    sys.path.insert(0, str(TOOLS))
    try:
        import reference_python as reference
    finally:
        sys.path.remove(str(TOOLS))
    if not reference.WRAPPER.exists():
        raise RuntimeError("CPython 3.14, the reference, is not made yet: run `make reference-python` (or set REFERENCE_PYTHON)")
    return str(reference.WRAPPER)


def cpython_output(source: str, *, python: str | None = None, cwd: str | None = None) -> str:
    """What CPython prints running ``source`` (stdout, UTF-8, whatever the locale); a failing program is a
    broken case."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONUTF8="1")
    done = subprocess.run(
        [python or sys.executable, "-c", source],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, f"the case fails in CPython itself (a broken case):\n{done.stderr}"
    return done.stdout


def readable_diff(expected: str, actual: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), fromfile="cpython", tofile="sandbox", lineterm="")
    return "\n".join(lines)


def assert_prints_as_cpython(interp, source: str, *, limit: int = 20_000) -> None:
    """``source`` run by ``interp`` (a sandbox session) prints what the reference CPython prints."""
    expected = cpython_output(source, python=reference_python())
    actual = interp.execute(source)
    cap = interp._configuration.options.session.max_output_chars
    assert len(expected) <= cap, (
        f"the program prints {len(expected):,} characters: make the interpreter with max_output_chars above that (it has {cap:,})"
    )
    assert actual == expected, readable_diff(expected, actual)[:limit]
