"""The built wheel, installed as a user would: into fresh virtual environments of the oldest and newest CPython
it supports (3.10 and 3.13, found on PATH or under pyenv), with dspy from PyPI, then the RLM example run from
a folder outside the source tree, so nothing but the installed wheel can be imported.

    make wheel && python tools/wheel_check.py [dist/dspy_rust_interpreter-....whl ...]
"""

from __future__ import annotations

import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = ("3.10", "3.13")
EXAMPLE = ROOT / "examples" / "rlm_long_document.py"
# What the example prints when the run reached its submitted answer (see the example's own checks).
EXPECTED = "check       : matches the planted facts"


def find_python(version: str) -> str | None:
    """A python{version} that runs: pyenv's own build first (its shim on PATH may refuse), else PATH's."""
    candidates = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))[::-1]
    candidates += [found for found in [shutil.which(f"python{version}")] if found]
    for python in candidates:
        if subprocess.run([python, "-c", "pass"], capture_output=True).returncode == 0:
            return python
    return None


def check(wheel: Path, version: str) -> None:
    python = find_python(version)
    if python is None:
        raise SystemExit(f"error: no python{version} on PATH or under ~/.pyenv/versions")
    with tempfile.TemporaryDirectory(prefix=f"wheel-py{version}-") as work:
        env_dir = Path(work) / "venv"
        subprocess.run([python, "-m", "venv", str(env_dir)], check=True)
        venv_python = str(env_dir / "bin" / "python")
        subprocess.run(
            [venv_python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{wheel}[dspy]"], check=True
        )
        example = Path(work) / EXAMPLE.name
        shutil.copy(EXAMPLE, example)
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "EXAMPLE_INTERPRETER", "DSPY_LM")}
        where = subprocess.run(
            [
                venv_python,
                "-c",
                "import dspy_rust_interpreter as p; assert p._native.SYSTEM_CALL_FILTER; "
                "assert not hasattr(p._native.Session, '_inject_fault'), 'a test build'; print(p.__file__)",
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if not where.startswith(str(env_dir)):
            raise SystemExit(f"error: python{version} imported the package from {where}, not from the installed wheel")
        run = subprocess.run([venv_python, str(example)], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        if run.returncode or EXPECTED not in run.stdout:
            raise SystemExit(
                f"error: the example failed on python{version} (exit {run.returncode}):\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
            )
        print(f"python{version}: installed {wheel.name}, imported from the venv, the RLM example passed")


def check_platform(wheel: Path) -> None:
    """auditwheel's verdict: the wheel's external symbols fit the manylinux tag it carries."""
    shown = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True)
    tag = wheel.name.rsplit("-", 1)[-1].removesuffix(".whl")
    if shown.returncode or f'consistent with the following platform tag: "{tag}"' not in " ".join(shown.stdout.split()):
        raise SystemExit(f"error: auditwheel does not confirm {tag} for {wheel.name}:\n{shown.stdout}{shown.stderr}")
    print(f"auditwheel: {wheel.name} is consistent with {tag}")


def main(args: list[str]) -> int:
    """Every wheel given (default: dist/'s) is checked by auditwheel; the one for this machine is installed and
    run (the aarch64 wheel runs under emulation: tools/aarch64_check.py)."""
    wheels = [Path(a).resolve() for a in args] or sorted((ROOT / "dist").glob("dspy_rust_interpreter-*.whl"))
    native = [wheel for wheel in wheels if wheel.name.endswith(f"_{platform.machine()}.whl")]
    if not native:
        raise SystemExit(f"error: no {platform.machine()} wheel among {[w.name for w in wheels]}; run `make wheel` first")
    for wheel in wheels:
        check_platform(wheel)
    for version in VERSIONS:
        check(native[-1], version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
