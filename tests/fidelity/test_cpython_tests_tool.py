"""`tools/cpython_tests.py` (CPython's regression tests in the sandbox) keeps working: one small module, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "cpython_tests.py"


def test_the_tool_runs_a_cpython_test_module_in_the_sandbox(tmp_path):
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(TOOL), "test_keyword", "--json", str(out)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    [row] = json.loads(out.read_text())["rows"]
    assert row["module"] == "test_keyword" and row["import_error"] is None, row
    assert row["passed"] >= 10 and row["failed"] == row["error"] == 0, row
    assert "| test_keyword | " in done.stdout and "100%" in done.stdout
