"""The callback programs of ``fuzz_callbacks.py`` under a memory checker: each runs in a sandbox VM inside the crate's
unit-test binary (``sandbox::prepare::tests::callback_programs_under_a_memory_checker``), which valgrind's memcheck watches.
Native code that reads an object sandbox code freed or resized meanwhile is an invalid read there, even where it
would not crash; any error valgrind reports fails the run.

    python fuzz/memcheck_callbacks.py --programs 200 --seed 1   # what `make fuzz` runs
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEST = "sandbox::prepare::tests::callback_programs_under_a_memory_checker"


def test_binary() -> str:
    """The crate's unit-test binary (built if it is not, as `make test-rust` builds it)."""
    built = subprocess.run(
        ["cargo", "test", "--release", "--ignore-rust-version", "--lib", "--no-run", "--message-format=json"],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable") and message["profile"]["test"]:
            return message["executable"]
    raise SystemExit("no unit-test binary was built")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "1")))
    args = parser.parse_args()
    binary = test_binary()
    emitted = subprocess.run(
        [sys.executable, str(HERE / "fuzz_callbacks.py"), "--emit", str(args.programs), "--seed", str(args.seed)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as programs:
        programs.write(emitted)
    env = {**os.environ, "DRI_CALLBACK_PROGRAMS": programs.name, "RUST_MIN_STACK": str(64 << 20)}
    command = ["valgrind", "--error-exitcode=99", "--quiet", binary, "--ignored", "--exact", TEST, "--nocapture"]
    try:
        ran = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    finally:
        os.unlink(programs.name)
    summary = next((line for line in ran.stderr.splitlines() if "programs ran" in line), "no programs ran")
    print(f"memcheck of {args.programs} callback programs (seed {args.seed}): {summary}", flush=True)
    if ran.returncode != 0 or "programs ran" not in ran.stderr:
        print(f"FINDING: valgrind or the test failed (exit {ran.returncode}):\n{ran.stderr[-6000:]}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
