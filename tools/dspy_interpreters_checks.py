"""The community conformance checks dspy's own tests use (the ``dspy-interpreters`` package, installed from its
repository: it is not on PyPI), run against RustInterpreter and a ``RustInterpreter.configured(...)`` factory.

    pip install "git+https://github.com/cmpnd-ai/dspy-interpreters"    # or from a local mirror
    python tools/dspy_interpreters_checks.py

Prints each check's verdict and the ids of failed checks; exits 1 when any fails.
"""

from __future__ import annotations

import sys

try:
    import dspy_interpreters
except ImportError:
    sys.exit("error: dspy-interpreters is not installed (see this file's docstring)")

from dspy_rust_interpreter import RustInterpreter

CHECKS = (
    "check_interpreter",
    "check_execution_instructions",
    "check_rlm",
    "check_rlm_execution_instructions",
    "check_flex_facade",
)


def main() -> int:
    failed = 0
    for factory in (RustInterpreter, RustInterpreter.configured(timeout=10.0)):
        for name in CHECKS:
            report = getattr(dspy_interpreters, name)(factory)
            verdict = "passed" if report.passed else f"FAILED {report.failed_ids}"
            print(f"{name:<34} {factory!r:<48} {verdict}")
            failed += not report.passed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
