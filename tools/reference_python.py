"""CPython 3.14, the version the sandbox speaks, as the reference every comparison runs against (tests/cpython.py).

    python tools/reference_python.py          # prints the reference's path, making it first if need be

Debian's ``python3.14`` (sid) with its ``Lib/test`` (``libpython3.14-testsuite``), unpacked once into the cache by
debootstrap's first stage (the packages are downloaded and extracted; no maintainer script runs, nothing is
installed on this machine). Its C library is newer than this machine's, so the interpreter runs under the root's
own dynamic loader and libraries; ``python3.14`` here is a small script that starts it so, with the root's
standard library (``PYTHONHOME``) and itself as ``sys.executable``. It sees this machine's files, as a reference
run by path does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CACHE = Path(os.environ.get("DSPY_RUST_CACHE", Path.home() / ".cache" / "dspy-rust-interpreter"))
ROOT = CACHE / "cpython-3.14"
WRAPPER = ROOT / "python3.14"
SUITE = "sid"
PACKAGES = ["python3.14", "libpython3.14-testsuite"]
MIRROR = "http://deb.debian.org/debian"
VERSION = (3, 14)


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(map(str, command)), file=sys.stderr, flush=True)
    return subprocess.run(command, check=True, **kwargs)


def debootstrap() -> str:
    found = shutil.which("debootstrap") or "/usr/sbin/debootstrap"
    if not Path(found).exists():
        run(["apt-get", "install", "-y", "--no-install-recommends", "debootstrap"], stdout=subprocess.DEVNULL)
    return found


def write_wrapper(root: Path) -> None:
    libraries = f"{root}/lib/x86_64-linux-gnu:{root}/usr/lib/x86_64-linux-gnu"
    (root / "python3.14").write_text(
        "#!/bin/sh\n"
        "# CPython 3.14 of the Debian root beside this script, under that root's loader and libraries.\n"
        f'PYTHONHOME="{root}/usr" exec "{root}/lib64/ld-linux-x86-64.so.2" --library-path "{libraries}" '
        f'--argv0 "$0" "{root}/usr/bin/python3.14" "$@"\n'
    )
    (root / "python3.14").chmod(0o755)


def works(wrapper: Path) -> bool:
    try:
        done = subprocess.run(
            [str(wrapper), "-c", "import sys, test.support; print(sys.version_info[:2], sys.executable)"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except OSError:
        return False
    return done.returncode == 0 and done.stdout.split(")")[0] + ")" == str(VERSION)


def make() -> Path:
    """The reference's path, made first if it is not in the cache yet (about 15 seconds and 60 MB)."""
    if WRAPPER.exists() and works(WRAPPER):
        return WRAPPER
    staging = ROOT.with_name(ROOT.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    run(
        [debootstrap(), "--foreign", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(staging), MIRROR],
        stdout=subprocess.DEVNULL,
    )
    # The first stage extracts only the base system: the packages asked for are extracted here.
    for package in sorted((staging / "var/cache/apt/archives").glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(package), str(staging)], check=True)
    shutil.rmtree(staging / "var/cache/apt/archives", ignore_errors=True)
    shutil.rmtree(ROOT, ignore_errors=True)
    staging.rename(ROOT)
    write_wrapper(ROOT)
    if not works(WRAPPER):
        raise SystemExit(f"CPython 3.14 in {ROOT} does not start: see {WRAPPER}")
    return WRAPPER


if __name__ == "__main__":
    print(make())
