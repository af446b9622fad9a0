"""The fuzz harness must report what it exists to find: a host process that dies, and one that hangs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parent.parent / "fuzz" / "fuzz_interpreter.py"


@pytest.mark.parametrize("fault, expected", [("crash", "crash (exit code"), ("hang", "hang (no result after")])
def test_harness_reports_a_dying_or_hanging_child(fault, expected):
    env = {**os.environ, "FUZZ_SELF_TEST": fault, "FUZZ_HANG_SLACK": "1"}
    process = subprocess.run(
        [sys.executable, str(HARNESS), "--seconds", "8", "--seed", "99"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert process.returncode == 1, process.stdout + process.stderr
    assert f"FINDING: {expected}" in process.stdout
