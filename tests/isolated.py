"""Run a scenario in a child Python process, so that a crash or hang of the process is a test failure of its
own rather than the end of the test run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

PRELUDE = """
import json, sys, time
from dspy_rust_interpreter import RustInterpreter, CodeExecutionError, CodeInterpreterError

def outcome(interp, code, **kwargs):
    started = time.perf_counter()
    try:
        value = interp.execute(code, **kwargs)
        result = {"kind": "value", "value": repr(value)}
    except CodeExecutionError as error:
        result = {"kind": "error", "type": error.error_type, "message": str(error)}
    except CodeInterpreterError as error:
        result = {"kind": "dead", "message": str(error)}
    result["seconds"] = time.perf_counter() - started
    return result

results = {}
"""


def run_isolated(script: str, timeout: float = 120) -> dict[str, Any]:
    """Run ``script`` (which fills the dict ``results``) in a child; return ``results``.

    Fails if the child crashes, hangs past ``timeout`` or exits with an error.
    """
    # A child that hangs shows where before it is killed: every thread's stack, on stderr.
    watch = f"import faulthandler\nfaulthandler.dump_traceback_later({max(timeout - 10, timeout / 2)!r}, exit=False)\n"
    source = watch + PRELUDE + textwrap.dedent(script) + "\nprint('RESULTS:' + json.dumps(results))\n"
    try:
        process = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as hung:
        # Shown with the test's failure (pytest captures stderr): where the child was when it was killed.
        stderr = hung.stderr.decode("utf-8", "replace") if isinstance(hung.stderr, bytes) else hung.stderr or ""
        sys.stderr.write(f"the child was still running after {timeout} s; where it was:\n{stderr[-6000:]}\n")
        raise
    assert process.returncode == 0, f"child exited with {process.returncode}:\n{process.stderr[-3000:]}"
    line = next(line for line in process.stdout.splitlines() if line.startswith("RESULTS:"))
    return json.loads(line[len("RESULTS:") :])


def run_child(script: str, timeout: float = 120.0) -> dict[str, Any]:
    """run_isolated, with a hang of the child reported as a test failure."""
    try:
        return run_isolated(script, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass  # failed outside the handler, so the report is not buried under the child's whole script
    pytest.fail(f"the child process was still running after {timeout} s: the host process hung", pytrace=False)
