"""Run slices of real packages' own test suites inside the sandbox with pytest, and report pass rates (issue 29).

Each package is given to the session as a user would give it (``packages=[name, "pytest"]``: the host's
installed distributions, served read-only under /packages, imported in a package-set zygote), and pytest
itself runs inside the sandbox (``pytest.main`` in one ``execute()`` per test module, collected with
``--pyargs``). A package whose tests are not installed with it (more-itertools) has its source distribution
downloaded once into a cache folder (``pip download --no-binary``) and that folder's ``tests/`` mounted
read-only: the tests are data, never copied into this repository.

    python tools/package_tests.py                        # every slice, a table on stdout
    python tools/package_tests.py networkx --json out.json

Outcomes are counted by a small pytest plugin inside the sandbox (passed, failed, skipped, expected failures,
errors); a module that cannot be collected reports the collection error. The pass rate is passed / (passed +
failed + errors). The JSON holds each failure's test id and last line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from dspy_rust_interpreter import CodeExecutionError, Mount, RustInterpreter
from dspy_rust_interpreter._packages import USER_CACHE

# The slices: test modules that exercise what models use each package for (graphs and their algorithms;
# symbols, arithmetic, simplification, solving; iterator recipes).
SLICES: dict[str, list[str]] = {
    "networkx": [
        "networkx.classes.tests.test_graph",
        "networkx.classes.tests.test_digraph",
        "networkx.algorithms.tests.test_cycles",
        "networkx.algorithms.tests.test_dag",
        "networkx.algorithms.tests.test_simple_paths",
        "networkx.algorithms.tests.test_cluster",
        "networkx.algorithms.shortest_paths.tests.test_generic",
        "networkx.algorithms.shortest_paths.tests.test_weighted",
        "networkx.algorithms.components.tests.test_connected",
        "networkx.algorithms.traversal.tests.test_bfs",
        "networkx.algorithms.traversal.tests.test_dfs",
        "networkx.algorithms.flow.tests.test_maxflow",
        "networkx.generators.tests.test_classic",
    ],
    "sympy": [
        "sympy.core.tests.test_basic",
        "sympy.core.tests.test_arit",
        "sympy.core.tests.test_expand",
        "sympy.core.tests.test_symbol",
        "sympy.core.tests.test_relational",
        "sympy.simplify.tests.test_radsimp",
        "sympy.polys.tests.test_factortools",
        "sympy.solvers.tests.test_solveset",
        "sympy.series.tests.test_limits",
        "sympy.matrices.tests.test_determinant",
        "sympy.functions.elementary.tests.test_trigonometric",
    ],
    "more-itertools": ["tests/test_more.py", "tests/test_recipes.py"],
    # Compiled packages, which the sandbox reaches in CPython: their tests run in the sandbox, against the bridge.
    "numpy": [
        "lib/tests/test_arraysetops.py",
        "lib/tests/test_histograms.py",
        "lib/tests/test_nanfunctions.py",
        "lib/tests/test_index_tricks.py",
        "lib/tests/test_polynomial.py",
        "lib/tests/test_shape_base.py",
        "lib/tests/test_twodim_base.py",
        "_core/tests/test_shape_base.py",
        "_core/tests/test_indexing.py",
        "_core/tests/test_einsum.py",
        "linalg/tests/test_linalg.py",
        "random/tests/test_generator_mt19937.py",
    ],
    "pandas": [
        "tests/reshape/test_pivot.py",
        "tests/frame/methods/test_sort_values.py",
        "tests/series/methods/test_value_counts.py",
        "tests/groupby/test_groupby.py",
        "tests/window/test_rolling.py",
    ],
}
# pytest options a suite needs here: sympy's conftest.py refuses to start without hypothesis, whose newest
# releases need a compiled module; the slices below do not use it.
SUITE_OPTIONS = {"sympy": ["--noconftest"]}
# Packages whose tests are not installed: their sdist's tests/ folder is mounted here.
SDIST_TESTS = {"more-itertools": "/suite"}
# Packages whose tests are installed inside them, each test folder mounted under /suite as a package of its own
# (`/suite/numpy_lib_tests`): the tests are sandbox code, and the package they test is the one CPython serves.
IN_PACKAGE_TESTS = {"numpy", "pandas"}
CACHE = USER_CACHE / "package-tests"
MODULE_TIMEOUT = 900.0

COUNTER = """
import pytest

class _Count:
    def __init__(self):
        self.outcomes = {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0, "errors": 0}
        self.failures = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        # sympy marks expected failures and skips with exceptions of its own, which its conftest.py (not
        # loaded: --noconftest) would turn into pytest's xfail and skip.
        report = (yield).get_result()
        excinfo = call.excinfo
        if excinfo is not None and excinfo.type.__module__ == "sympy.testing.pytest" and report.failed:
            if excinfo.typename == "XFail":
                report.outcome, report.wasxfail = "skipped", "sympy XFAIL"
            elif excinfo.typename == "Skipped":
                report.outcome = "skipped"

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and not report.passed):
            kind = {"passed": "passed", "skipped": "skipped"}.get(report.outcome)
            if hasattr(report, "wasxfail"):
                kind = "xfailed" if report.outcome == "skipped" else "passed"
            if kind is None:
                kind = "failed" if report.when == "call" else "errors"
                text = str(report.longrepr).strip().splitlines()
                self.failures.append([report.nodeid, text[-1][:300] if text else ""])
            self.outcomes[kind] += 1

    def pytest_collectreport(self, report):
        if report.failed:
            self.outcomes["errors"] += 1
            text = str(report.longrepr).strip().splitlines()
            self.failures.append([report.nodeid or "<collection>", text[-1][:300] if text else ""])
"""
RUN = """
_counter = _Count()
_code = pytest.main([*{args!r}, "-q", "-p", "no:cacheprovider", "-p", "no:faulthandler", "--capture=sys",
                     "-o", "python_files=test_*.py", "--rootdir", {root!r}], plugins=[_counter])
print(__import__("json").dumps({{"exit": int(_code), **_counter.outcomes, "failures": _counter.failures}}))
"""


def sdist_tests(package: str) -> Path:
    """The folder of ``package``'s source distribution (same version as installed), downloaded once."""
    from importlib import metadata

    version = metadata.version(package)
    target = CACHE / f"{package}-{version}"
    if (target / "tests").is_dir():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            f"{package}=={version}",
            "-d",
            str(CACHE),
        ],
        check=True,
    )
    archive = next(CACHE.glob(f"{package.replace('-', '_')}-{version}.tar.gz"), None) or next(
        CACHE.glob(f"{package}-{version}.tar.gz")
    )
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    extracted = next(p for p in CACHE.iterdir() if p.is_dir() and p.name.replace("_", "-") == f"{package}-{version}")
    if extracted != target:
        extracted.rename(target)
    return target


def run_module(package: str, target: str) -> dict:
    mounts = []
    root = "/"
    if package in IN_PACKAGE_TESTS:
        from importlib.util import find_spec

        folder, _, module = target.rpartition("/")
        base = Path(next(iter(find_spec(package).submodule_search_locations)))
        alias = f"{package}_{folder.replace('/', '_')}"
        mounts.append(Mount(f"/suite/{alias}", str(base / folder)))
        root = "/suite"
        args = [f"/suite/{alias}/{module}"]
    elif package in SDIST_TESTS:
        folder = sdist_tests(package)
        mounts.append(Mount(SDIST_TESTS[package] + "/tests", str(folder / "tests")))
        root = SDIST_TESTS[package]
        args = [f"{root}/{target}"]
    else:
        args = ["--pyargs", target]
    args += SUITE_OPTIONS.get(package, [])
    session = RustInterpreter(packages=[package, "pytest"], mounts=mounts, timeout=MODULE_TIMEOUT, max_output_chars=5_000_000)
    started = time.monotonic()
    try:
        session.execute(COUNTER)
        out = session.execute(RUN.format(args=args, root=root))
        line = [text for text in str(out).splitlines() if text.startswith('{"exit"')][-1]
        result = json.loads(line)
    except CodeExecutionError as exc:
        result = {"error": str(exc).strip().splitlines()[0][:300]}
    finally:
        session.shutdown()
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help=f"some of {', '.join(SLICES)} (default: all)")
    parser.add_argument("--json", help="write every result here")
    args = parser.parse_args()
    unknown = sorted(set(args.packages) - set(SLICES))
    if unknown:
        parser.error(f"no slice for {', '.join(unknown)}; the slices are {', '.join(SLICES)}")
    results: dict[str, dict[str, dict]] = {}
    for package in args.packages or list(SLICES):
        results[package] = {}
        for target in SLICES[package]:
            result = run_module(package, target)
            results[package][target] = result
            counts = (
                "error: " + result["error"]
                if "error" in result
                else (
                    f"{result['passed']} passed, {result['failed']} failed, {result['errors']} errors, "
                    f"{result['skipped']} skipped, {result['xfailed']} expected failures"
                )
            )
            print(f"{package:15} {target:60} {counts} ({result['seconds']} s)", flush=True)
    print()
    print("| package | test modules | passed | failed | errors | skipped | expected failures | pass rate |")
    print("|---|---|---|---|---|---|---|---|")
    for package, modules in results.items():
        keys = ("passed", "failed", "errors", "skipped", "xfailed")
        total = {key: sum(m.get(key, 0) for m in modules.values()) for key in keys}
        ran = total["passed"] + total["failed"] + total["errors"]
        rate = f"{100 * total['passed'] / ran:.1f} %" if ran else "-"
        print(
            f"| {package} | {len(modules)} | {total['passed']} | {total['failed']} | {total['errors']} | "
            f"{total['skipped']} | {total['xfailed']} | {rate} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
