"""The aarch64 wheels run under emulation (`make test-aarch64`): an arm64 CPython (Debian bookworm's 3.11, unpacked
by debootstrap) under qemu-user, with the wheels and their dependencies for cp311 aarch64 installed beside it by
the host's pip.

qemu-user cannot install a seccomp filter from its guest (`prctl(PR_SET_SECCOMP, ...)` answers EINVAL), so:
1. the shipped wheel (dist/, `make wheel`) must fail closed there: a session whose confinement cannot be installed
   runs no code, and says why;
2. everything else runs on the test build (`--features unfiltered-for-emulation`, which leaves out only the
   filter's installation; `_native.SYSTEM_CALL_FILTER` is False in it): the RLM example, the conformance kit and
   the isolation suite, but for the tests marked `system_call_filter` (what the filter refuses; the aarch64 filter
   is checked call by call without emulation instead: `worker::confine`'s tests) and `native_process` (what
   qemu-user itself changes in a process: its own descriptors and mappings, signals it takes for itself).

    python tools/aarch64_check.py [--shipped dist/....whl] [--pytest-args "..."]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from wheel_check import EXAMPLE, EXPECTED  # the RLM example and what it prints when it passed

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("DSPY_RUST_CACHE", Path.home() / ".cache" / "dspy-rust-interpreter"))
# Debian's arm64 CPython, unpacked (never configured: nothing in it runs but python under qemu).
ARM_ROOT = CACHE / "arm64-root"
ARM_PYTHON = "/usr/bin/python3.11"
HOST_FOLDERS = ("proc", "sys", "dev", "run", "tmp", "root", "home")
TARGET = "aarch64-unknown-linux-gnu"
PLATFORMS = ["manylinux_2_28_aarch64", "manylinux2014_aarch64", "manylinux_2_17_aarch64", "linux_aarch64"]
# What the suite needs in the arm64 python beside the wheel (the `test` extra's heavy peers, ray and sympy, are
# not used by the conformance kit or the isolation suite).
REQUIREMENTS = ["dspy>=3.3", "pytest>=8", "tzdata"]


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(map(str, command)), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def install_tools() -> None:
    """qemu-user and debootstrap from Debian's packages, the Rust target, zig: what the cross build and the
    emulation need."""
    missing = [
        package
        for package, command in (("qemu-user-static", "qemu-aarch64-static"), ("debootstrap", "debootstrap"))
        if shutil.which(command) is None and not Path("/usr/sbin", command).exists()
    ]
    if missing:
        run(["apt-get", "install", "-y", "--no-install-recommends", *missing], stdout=subprocess.DEVNULL)
    run(["rustup", "target", "add", TARGET], stderr=subprocess.DEVNULL)


def arm_root() -> Path:
    """Debian bookworm's arm64 python3, unpacked once into the cache (debootstrap's first stage downloads the
    packages; their files are extracted as they are, no maintainer script runs)."""
    if (ARM_ROOT / ARM_PYTHON.lstrip("/")).exists() and not any((ARM_ROOT / folder).exists() for folder in HOST_FOLDERS):
        return ARM_ROOT
    staging = ARM_ROOT.with_name(ARM_ROOT.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    debootstrap = shutil.which("debootstrap") or "/usr/sbin/debootstrap"
    run(
        [debootstrap, "--foreign", "--arch=arm64", "--variant=minbase", "--include=python3", "bookworm", str(staging)],
        stdout=subprocess.DEVNULL,
    )
    for package in sorted((staging / "var/cache/apt/archives").glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(package), str(staging)], check=True)
    # qemu's -L prefix serves any path that exists under it before the host's: without these folders the
    # emulated processes see the host's /proc, /tmp and devices, as the tests expect (a listing of /proc would
    # otherwise be the root's empty folder).
    for folder in HOST_FOLDERS:
        shutil.rmtree(staging / folder, ignore_errors=True)
    staging.rename(ARM_ROOT)
    return ARM_ROOT


def python_wrapper(folder: Path) -> Path:
    """An executable `python3` that runs the arm64 python under qemu. It is what `sys.executable` names inside
    (qemu's `-0` sets argv[0]), so the zygote, started as `sys.executable`, runs under qemu too: without
    binfmt_misc the host kernel cannot run an arm64 program that the emulated python starts directly."""
    qemu = shutil.which("qemu-aarch64-static") or "/usr/bin/qemu-aarch64-static"
    wrapper = folder / "bin" / "python3"
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    # `env -u PWD`: the shell exports PWD, which a session process must not inherit (it has no environment).
    wrapper.write_text(f'#!/bin/sh\nexec env -u PWD {qemu} -L {ARM_ROOT} -0 "$0" {ARM_ROOT}{ARM_PYTHON} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def build_test_wheel(out: Path) -> Path:
    """The test build: the release profile (no fat LTO: minutes, not a quarter of an hour), without the filter."""
    run(
        [
            sys.executable,
            "-m",
            "maturin",
            "build",
            "--release",
            "--ignore-rust-version",
            "--target",
            TARGET,
            "--zig",
            "--compatibility",
            "manylinux_2_28",
            "-F",
            "pyo3/extension-module,unfiltered-for-emulation,fault-injection",
            "--out",
            str(out),
        ],
        cwd=ROOT,
    )
    return only_wheel(out)


def only_wheel(folder: Path) -> Path:
    wheels = sorted(folder.glob("dspy_rust_interpreter-*aarch64.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"error: expected one aarch64 wheel in {folder}, found {[w.name for w in wheels]}")
    return wheels[0]


def site_with(wheel: Path, site: Path, downloads: Path) -> Path:
    """`wheel` and `REQUIREMENTS`, as cp311 aarch64 wheels, installed into `site` by the host's pip."""
    platform_args = [f"--platform={tag}" for tag in PLATFORMS]
    common = ["--only-binary=:all:", "--implementation=cp", "--python-version=3.11", *platform_args]
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--dest",
            str(downloads),
            *common,
            *REQUIREMENTS,
        ]
    )
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
            str(downloads),
            "--target",
            str(site),
            *common,
            str(wheel),
            *REQUIREMENTS,
        ]
    )
    return site


def emulated(
    wrapper: Path, site: Path, args: list[str], *, cwd: Path, timeout: float, check: bool = True
) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", "/root"),
        "PYTHONPATH": str(site),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
    }
    shown = ["-c <script>" if previous == "-c" else arg for previous, arg in zip([""] + args, args) if arg != "-c"]
    print("+ (arm64) python3", " ".join(shown), flush=True)
    done = subprocess.run([str(wrapper), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode:
        raise SystemExit(f"error: exit {done.returncode}:\n{done.stdout[-6000:]}\n{done.stderr[-4000:]}")
    return done


FAILS_CLOSED = """
from dspy_rust_interpreter import RustInterpreter, _native
from dspy.primitives.code_interpreter import CodeInterpreterError
import platform
assert platform.machine() == "aarch64", platform.machine()
assert _native.SYSTEM_CALL_FILTER, "the shipped wheel must install the filter"
interp = RustInterpreter()
try:
    interp.execute("print('ran')")
except CodeInterpreterError as error:
    assert "could not be confined" in str(error) and "filter could not be installed" in str(error), error
    print("refused:", error)
else:
    raise SystemExit("a session ran code without its system-call filter")
finally:
    interp.shutdown()
"""

IS_TEST_BUILD = """
from dspy_rust_interpreter import RustInterpreter, _native
import platform
assert platform.machine() == "aarch64" and not _native.SYSTEM_CALL_FILTER
interp = RustInterpreter()
print(interp.execute("import sys, re; print(sys.platform, re.findall(r'\\\\d+', 'a1b22'))"))
interp.shutdown()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shipped", type=Path, help="the shipped aarch64 wheel (default: the one in dist/)")
    parser.add_argument("--pytest-args", default="", help="more arguments for pytest (e.g. a -k expression)")
    options = parser.parse_args()
    install_tools()
    arm_root()
    shipped = (options.shipped or only_wheel(ROOT / "dist")).resolve()
    with tempfile.TemporaryDirectory(prefix="aarch64-check-") as scratch:
        work = Path(scratch)
        wrapper = python_wrapper(work)
        downloads = CACHE / "aarch64-downloads"
        print(
            emulated(
                wrapper, site_with(shipped, work / "shipped", downloads), ["-c", FAILS_CLOSED], cwd=work, timeout=600
            ).stdout.strip()
        )
        print(f"{shipped.name}: fails closed under qemu-user (no filter can be installed), as it must")
        test_wheel = build_test_wheel(work / "test-wheel")
        site = site_with(test_wheel, work / "site", downloads)
        print(emulated(wrapper, site, ["-c", IS_TEST_BUILD], cwd=work, timeout=600).stdout.strip())
        example = work / EXAMPLE.name
        shutil.copy(EXAMPLE, example)
        # The example from outside the source tree: only the installed test build can be imported.
        ran = emulated(wrapper, Path(site), [str(example)], cwd=work, timeout=1800, check=False)
        if ran.returncode or EXPECTED not in ran.stdout:
            raise SystemExit(f"error: the RLM example failed under emulation:\n{ran.stdout[-4000:]}{ran.stderr[-4000:]}")
        print("the RLM example passed under emulation")
        # The suite from a copy outside the source tree too (the tree's pytest settings would put the tree, and
        # its x86_64 build, first on the path).
        suite = work / "suite"
        for folder in ("conformance", "tests"):
            shutil.copytree(ROOT / folder, suite / folder, ignore=shutil.ignore_patterns("__pycache__"))
        (suite / "pytest.ini").write_text("[pytest]\npythonpath = tests .\naddopts = -p no:cacheprovider\n")
        tests = emulated(
            wrapper,
            site,
            [
                "-m",
                "pytest",
                "-q",
                "-m",
                "not system_call_filter and not native_process",
                "conformance",
                "tests/isolation",
                *options.pytest_args.split(),
            ],
            cwd=suite,
            timeout=5400,
            check=False,
        )
        print(tests.stdout[-8000:], tests.stderr[-3000:])
        return tests.returncode


if __name__ == "__main__":
    raise SystemExit(main())
