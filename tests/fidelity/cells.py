"""A cell's outcome in the sandbox and in the reference CPython, in one shape, so the two can be compared."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from cpython import reference_python

from dspy_rust_interpreter import CodeExecutionError

RUNNER = Path(__file__).parent / "cpython_cells.py"
TRACEBACK = "\n\nTraceback (most recent call last):"
# What the sandbox writes before a run's stderr, after its stdout (src/sandbox/bridge/output.rs).
STDERR = "[stderr]\n"


def apart(text: str) -> tuple[str, str]:
    """A sandbox output's stdout and stderr."""
    if text.startswith(STDERR):
        return "", text[len(STDERR) :]
    stdout, found, stderr = text.partition("\n" + STDERR)
    return (stdout + "\n" if found else stdout), stderr


def cpython_cells(
    cells: list[str],
    *,
    fresh: bool = False,
    tools: list[Path] = (),
    variables: dict | None = None,
    cwd: str | None = None,
    python: str | None = None,
) -> list[list[str]]:
    """Each cell's outcome in the reference CPython (see cpython_cells.py for the shape), run in ``cwd`` if given,
    with UTF-8 as the default encoding of files, as the sandbox's."""
    job = {"cells": cells, "fresh": fresh, "tools": [str(path) for path in tools], "variables": variables or {}}
    done = subprocess.run(
        [python or reference_python(), str(RUNNER)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=dict(os.environ, PYTHONUTF8="1"),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def in_sandbox(interp, source: str, variables: dict | None = None) -> list[str]:
    """The sandbox's outcome in the same shape: [kind, text, stdout before an error, stderr]."""
    try:
        result = interp.execute(source, variables)
    except CodeExecutionError as error:
        printed, stderr = apart(error.output or "")
        return ["error", str(error).split(TRACEBACK)[0].rstrip("\n"), printed, stderr]
    kind = type(result).__name__
    if kind == "FinalOutput":
        return ["submit", repr(result.output), "", ""]
    if kind == "FinalAnswerResult":
        return ["final", repr(result.answer), "", ""]
    if result is None:
        return ["value", "", "", ""]
    if not isinstance(result, str):
        return ["value", repr(result), "", ""]
    text, stderr = apart(result)
    return ["value", text, "", stderr]


def comparable(outcome: list[str]) -> tuple[str, str, str, bool]:
    """Kind, text, (for an error) what was printed before it, trailing newlines aside, and whether anything went
    to stderr (its words are not compared: a warning names the cell's file, which differs)."""
    kind, text, stderr = outcome[0], outcome[1], outcome[3]
    printed = outcome[2] if kind == "error" else ""
    return kind, text.rstrip("\n"), printed.rstrip("\n"), bool(stderr)
