"""dspy's own interpreter tests, run against RustInterpreter in place of dspy's PythonInterpreter.

    python tools/dspy_tests.py                       # the tag of the installed dspy, from GitHub
    python tools/dspy_tests.py --dspy 3.3.1 --repo /path/to/dspy.git    # in a venv with dspy 3.3.1

The test files (dspy's interpreter and its consumers: RLM, CodeAct, ProgramOfThought, Flex) are fetched from
dspy's public repository at the tag of the dspy that ``--python`` has installed: never copied into this
repository. ``--repo`` is a git URL or a local git directory (a mirror). Each failure is classified by the
committed table in ``dspy_tests_reasons.py``: "Deno-specific" (the test reads or patches the Deno/Pyodide
machinery) or, for those that apply, "different" (deliberately, with the reason); a failure in neither is
"unexplained", and makes the exit status 1. Counts per file, and each unexplained failure, are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from dspy_tests_reasons import REASONS, kind_of  # noqa: E402
from dspy_venvs import prepare  # noqa: E402

ROOT = HERE.parent
DEFAULT_REPO = "https://github.com/stanfordnlp/dspy.git"
TEST_FILES = (
    "tests/primitives/test_python_interpreter.py",
    "tests/predict/test_rlm.py",
    "tests/predict/test_code_act.py",
    "tests/predict/test_program_of_thought.py",
    "tests/flex/test_flex_interpreter.py",
)
COLUMNS = ("passed", "failed", "Deno-specific", "different", "unexplained", "skipped")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=os.environ.get("DSPY_REPO", DEFAULT_REPO), help="dspy's git URL or a local git dir")
    parser.add_argument("--ref", help="the tag to test (default: the version of the dspy --python has installed)")
    parser.add_argument("--python", default=sys.executable, help="the Python (with dspy and pytest) to run them with")
    parser.add_argument("--dspy", help="run them in the venv of tools/dspy_venvs.py for this dspy version")
    parser.add_argument("--json", type=Path, help="also write every test's outcome and class here")
    args = parser.parse_args()
    if args.dspy:
        python = prepare(f"dspy=={args.dspy}", extra=("pytest-asyncio",))
        if python is None:
            return 2
        args.python = str(python)

    installed = subprocess.run(
        [args.python, "-c", "import dspy; print(dspy.__version__)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ref = args.ref or installed
    if ref != installed:
        print(f"note: testing dspy {ref}'s tests against installed dspy {installed}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="dspy-tests-") as work:
        checkout = Path(work) / "dspy"
        if not fetch_tests(args.repo, ref, checkout):
            return 2
        results = run_tests(args.python, checkout, Path(work) / "results.json")
    return report(results, ref, args.json)


def fetch_tests(repo: str, ref: str, into: Path) -> bool:
    """dspy's ``tests`` folder (and pyproject, for pytest's settings) at ``ref``, into ``into``."""
    into.mkdir(parents=True)
    if Path(repo).is_dir():
        git_dir = ["git", "--git-dir", repo]
        if subprocess.run([*git_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], capture_output=True).returncode:
            print(f"error: {repo} has no tag {ref!r}; fetch it, or pass --ref with a tag it has", file=sys.stderr)
            return False
        archive = subprocess.run([*git_dir, "archive", ref, "tests", "pyproject.toml"], capture_output=True, check=True)
        subprocess.run(["tar", "x", "-C", str(into)], input=archive.stdout, check=True)
        return True
    cloned = subprocess.run(["git", "clone", "--quiet", "--depth", "1", "--branch", ref, repo, str(into / "clone")])
    if cloned.returncode:
        print(f"error: could not clone {repo} at {ref!r}", file=sys.stderr)
        return False
    for name in ("tests", "pyproject.toml"):
        shutil.move(str(into / "clone" / name), str(into / name))
    return True


def run_tests(python: str, checkout: Path, results_path: Path) -> dict[str, dict[str, str]]:
    env = {
        **os.environ,
        "DSPY_TESTS_RESULTS": str(results_path),
        # The swap plugin, and this source tree's package when the environment has none installed.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    command = [python, "-m", "pytest", "-p", "dspy_tests_swap", "--deno", "-q", "-p", "no:cacheprovider", *TEST_FILES]
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    if not results_path.exists():
        sys.exit(f"error: pytest wrote no results (exit status {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return json.loads(results_path.read_text())


def report(results: dict[str, dict[str, str]], ref: str, json_out: Path | None) -> int:
    counts: dict[str, Counter[str]] = {}
    unexplained = []
    for nodeid, result in sorted(results.items()):
        test = nodeid.removeprefix("tests/")
        file = test.split("::")[0]
        row = counts.setdefault(file, Counter())
        row[result["outcome"]] += 1
        if result["outcome"] == "failed":
            kind = kind_of(test)
            result["class"] = kind or "unexplained"
            row[result["class"]] += 1
            if kind is None:
                unexplained.append((test, result["message"]))
    print(f"dspy {ref}'s interpreter tests, RustInterpreter in place of PythonInterpreter:\n")
    width = max(map(len, counts)) if counts else 10
    print(f"{'file':<{width}}  " + "  ".join(f"{c:>13}" for c in COLUMNS))
    total: Counter[str] = Counter()
    for file, row in counts.items():
        total.update(row)
        print(f"{file:<{width}}  " + "  ".join(f"{row[c]:>13}" for c in COLUMNS))
    print(f"{'total':<{width}}  " + "  ".join(f"{total[c]:>13}" for c in COLUMNS))
    listed = {test for reason in REASONS for test in reason.tests}
    stale = sorted(test for test in listed if results.get(f"tests/{test}", {}).get("outcome") == "passed")
    if stale:
        print("\nlisted as failing but passed (take them off the list):", *stale, sep="\n  ")
    if unexplained:
        print("\nunexplained failures:")
        for test, message in unexplained:
            print(f"  {test}\n      {message}")
    if json_out:
        json_out.write_text(json.dumps({"ref": ref, "results": results}, indent=1, sort_keys=True))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
