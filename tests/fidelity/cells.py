"""A cell's outcome in the sandbox and in the reference CPython, in one shape, so the two can be compared."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cpython import reference_python
from dspy_rust_interpreter import CodeExecutionError

RUNNER = Path(__file__).parent / "cpython_cells.py"
TRACEBACK = "\n\nTraceback (most recent call last):"


def cpython_cells(
    cells: list[str], *, fresh: bool = False, tools: list[Path] = (), variables: dict | None = None
) -> list[list[str]]:
    """Each cell's outcome in the reference CPython (see cpython_cells.py for the shape)."""
    job = {"cells": cells, "fresh": fresh, "tools": [str(path) for path in tools], "variables": variables or {}}
    done = subprocess.run(
        [reference_python(), str(RUNNER)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def in_sandbox(interp, source: str, variables: dict | None = None) -> list[str]:
    """The sandbox's outcome in the same shape: [kind, text, stdout before an error]."""
    try:
        result = interp.execute(source, variables)
    except CodeExecutionError as error:
        return ["error", str(error).split(TRACEBACK)[0].rstrip("\n"), error.output or ""]
    kind = type(result).__name__
    if kind == "FinalOutput":
        return ["submit", repr(result.output), ""]
    if kind == "FinalAnswerResult":
        return ["final", repr(result.answer), ""]
    if result is None:
        return ["value", "", ""]
    return ["value", result if isinstance(result, str) else repr(result), ""]


def comparable(outcome: list[str]) -> tuple[str, str, str]:
    """Kind, text and (for an error) what was printed before it, trailing newlines aside."""
    kind, text = outcome[0], outcome[1]
    printed = outcome[2] if kind == "error" else ""
    return kind, text.rstrip("\n"), printed.rstrip("\n")
