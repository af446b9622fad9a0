"""Sandbox properties: executed code cannot reach the host's files, environment or processes.

A non-sandbox interpreter (e.g. dspy's LocalInterpreter) fails these by design; deselect with ``-m "not sandbox"``.
Each probe swallows in-sandbox exceptions, so the assertion is about the host-visible effect only.
"""

from __future__ import annotations

import pytest
from dspy.primitives.code_interpreter import CodeInterpreterError

pytestmark = pytest.mark.sandbox

SECRET = "dspy-conformance-secret-7f3a9c"


def _probe(interpreter, body: str) -> str:
    """Run ``body`` guarded by try/except inside the sandbox; return everything the caller got back."""
    indented = "\n".join("    " + line for line in body.splitlines())
    code = (
        f"leaked = None\ntry:\n{indented}\n"
        "except BaseException as exc:\n    leaked = 'blocked: ' + type(exc).__name__\n"
        "print(leaked)"
    )
    try:
        return str(interpreter.execute(code))
    except (CodeInterpreterError, SyntaxError) as exc:
        return f"raised: {exc}"


def test_code_cannot_read_a_host_file(interpreter, tmp_path):
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(SECRET)
    outcome = _probe(interpreter, f"leaked = open({str(secret_file)!r}).read()")
    assert SECRET not in outcome


def test_code_cannot_write_a_host_file(interpreter, tmp_path):
    target = tmp_path / "written-by-sandbox.txt"
    _probe(interpreter, f"open({str(target)!r}, 'w').write('x')")
    assert not target.exists()


def test_code_cannot_read_host_environment_variables(make_interpreter, monkeypatch):
    monkeypatch.setenv("DSPY_CONFORMANCE_SECRET", SECRET)
    interpreter = make_interpreter()
    outcome = _probe(interpreter, "import os\nleaked = os.environ.get('DSPY_CONFORMANCE_SECRET')")
    assert SECRET not in outcome


def test_code_cannot_run_host_commands_with_subprocess(interpreter, tmp_path):
    target = tmp_path / "touched-by-subprocess"
    _probe(interpreter, f"import subprocess\nsubprocess.run(['touch', {str(target)!r}])")
    assert not target.exists()


def test_code_cannot_run_host_commands_with_os_system(interpreter, tmp_path):
    target = tmp_path / "touched-by-os-system"
    _probe(interpreter, f"import os\nos.system('touch ' + {str(target)!r})")
    assert not target.exists()
