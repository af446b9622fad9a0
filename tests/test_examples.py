"""The examples run, offline, and get their answers right (each checks its own answers and exits non-zero on a
wrong one). They run as scripts in a child process, as a user would run them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dspy_rust_interpreter

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(name: str, **env: str) -> subprocess.CompletedProcess[str]:
    # The child must import the package under test, not whichever one happens to be installed.
    package_root = str(Path(dspy_rust_interpreter.__file__).resolve().parent.parent)
    child_env = {key: value for key, value in os.environ.items() if key not in ("DSPY_LM", "DSPY_SUB_LM")}
    child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    child_env.update(env)
    return subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, env=child_env, timeout=120)


@pytest.mark.parametrize(
    "pool_size",
    [
        pytest.param("", id="default-pool"),
        # Fewer interpreters than threads: runs wait at checkout for another run to give its interpreter back.
        pytest.param("2", id="pool-smaller-than-threads"),
    ],
)
def test_rlm_parallel_answers_every_document_from_its_own_interpreter(pool_size):
    process = run_example("rlm_parallel.py", EXAMPLE_TASKS="8", EXAMPLE_THREADS="4", EXAMPLE_POOL_SIZE=pool_size)
    output = process.stdout
    assert process.returncode == 0, f"exit code {process.returncode}\n{output}\n{process.stderr[-3000:]}"
    answers = re.findall(r"^  task (\d+): .* -> (.*)  (ok|MISMATCH.*|FAILED.*)$", output, re.MULTILINE)
    assert [int(task) for task, _, _ in answers] == list(range(8)), output
    assert all(verdict == "ok" for _, _, verdict in answers), output
    # Different documents, different planted facts: eight distinct answers, not one answer eight times.
    assert len({answer for _, answer, _ in answers}) == 8, output
    assert "check       : 8/8 answers match their documents' planted facts" in output
    assert "returned    : all (RLM shut each interpreter down)" in output
    assert re.search(r"^checkouts   : 8 through pool\.factory, 8 distinct interpreters", output, re.MULTILINE), output
    assert "panicked" not in process.stderr, process.stderr[-3000:]


def test_rlm_answers_over_a_mounted_folder_and_writes_its_report_to_the_host():
    process = run_example("rlm_mounted_folder.py")
    output = process.stdout
    assert process.returncode == 0, f"exit code {process.returncode}\n{output}\n{process.stderr[-3000:]}"
    assert "- /tickets (read-only): 60 files in 3 folders (.md: 60)" in output
    assert "check       : matches the corpus" in output
    assert "report      : report.csv on the host, 4 products" in output
