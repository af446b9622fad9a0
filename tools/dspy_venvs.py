"""The dspy-facing tests (the conformance kit, the end-to-end runs of dspy's modules, the drop-in surface) in one
virtual environment per supported dspy: the newest 3.3.x and the newest release, each upgraded on every run so
that a new dspy release is tested the day it ships (no upper pin refuses it untested).

    python tools/dspy_venvs.py            # every spec in SPECS
    python tools/dspy_venvs.py "dspy==3.3.*"

The package comes from this source tree (its built extension is abi3: any of these venvs can import it). A
venv that cannot be upgraded (no network) is tested with the dspy it has, with a warning; one that has no dspy
at all fails the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENVS = Path.home() / ".cache" / "dspy-rust-interpreter"
SPECS = ("dspy==3.3.*", "dspy")
TESTS = (
    "conformance",
    "tests/dspy_e2e",
    "tests/drop_in",
    "tests/sandbox/vm/test_errors.py",
    "tests/tools/test_tools_observability.py",
)
REQUIREMENTS = ("pytest>=8", "pydantic>=2")


def venv_for(spec: str) -> Path:
    name = "newest" if spec == "dspy" else spec.removeprefix("dspy==").replace("*", "x")
    return VENVS / f"venv-dspy-{name}"


def prepare(spec: str, extra: tuple[str, ...] = ()) -> Path | None:
    """The venv's python, with dspy at ``spec`` and ``extra`` packages (upgraded when PyPI answers); None when
    it has no dspy. Also what tools/dspy_tests.py runs dspy's own tests with."""
    where = venv_for(spec)
    python = where / "bin" / "python"
    if not python.exists():
        venv.create(where, with_pip=True)
    upgraded = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--upgrade", "--disable-pip-version-check", spec, *REQUIREMENTS, *extra],
        capture_output=True,
        text=True,
    )
    if upgraded.returncode:
        print(f"warning: could not upgrade {spec} in {where}:\n{upgraded.stderr[-1500:]}", file=sys.stderr)
    if subprocess.run([str(python), "-c", "import dspy, pytest"], capture_output=True).returncode:
        print(f"error: {where} has no dspy (or pytest) to test with", file=sys.stderr)
        return None
    return python


def main(specs: list[str]) -> int:
    failed = []
    for spec in specs:
        python = prepare(spec)
        if python is None:
            failed.append(spec)
            continue
        version = subprocess.run(
            [str(python), "-c", "import dspy; print(dspy.__version__)"], capture_output=True, text=True
        ).stdout.strip()
        print(f"== {spec}: dspy {version} ({python.parent.parent})", flush=True)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([str(python), "-m", "pytest", "-q", "-rs", *TESTS], cwd=ROOT, env=env)
        if done.returncode:
            failed.append(f"{spec} (dspy {version})")
    if failed:
        print(f"dspy-facing tests failed for: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(SPECS)))
