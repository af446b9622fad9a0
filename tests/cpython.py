"""Running a program in real CPython, to compare what the sandbox prints with what CPython prints."""

from __future__ import annotations

import difflib
import glob
import os
import subprocess
import sys
from pathlib import Path

# The sandbox speaks Python 3.14; the reference is the newest CPython 3.12+ on the machine (3.12 changed
# behaviour the sandbox follows, e.g. compensated float sums). REFERENCE_PYTHON names one explicitly.
REFERENCE_MINOR = 12


def reference_python() -> str:
    named = os.environ.get("REFERENCE_PYTHON")
    if named:
        return named
    if sys.version_info >= (3, REFERENCE_MINOR):
        return sys.executable
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = []
    for candidate in glob.glob(str(pyenv / "3.*" / "bin" / "python3")):
        minor = candidate.split("/versions/3.")[1].split(".")[0]
        if minor.isdigit() and int(minor) >= REFERENCE_MINOR:
            found.append((int(minor), candidate))
    if not found:
        raise RuntimeError(f"no CPython 3.{REFERENCE_MINOR}+ to compare with: install one under pyenv or set REFERENCE_PYTHON")
    return max(found)[1]


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
