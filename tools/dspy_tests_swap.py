"""pytest plugin for tools/dspy_tests.py: dspy's ``PythonInterpreter`` is ``RustInterpreter`` everywhere dspy
or a test module can reach it, and each test's outcome is written to the JSON file named by
``DSPY_TESTS_RESULTS``.

Loaded with ``-p dspy_tests_swap`` before any test module is imported, so ``from
dspy.primitives.python_interpreter import PythonInterpreter`` in a test gets ``RustInterpreter``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import dspy.primitives.python_interpreter as python_interpreter

from dspy_rust_interpreter import RustInterpreter

_ORIGINAL = python_interpreter.PythonInterpreter


def _swap() -> None:
    # Every loaded module that bound dspy's class by name (dspy, dspy.primitives, dspy.predict.rlm, ...).
    for module in list(sys.modules.values()):
        try:
            if getattr(module, "PythonInterpreter", None) is _ORIGINAL:
                module.PythonInterpreter = RustInterpreter
        except Exception:  # noqa: BLE001 - a module whose attributes cannot be read is not dspy's
            continue


_swap()

_results: dict[str, dict[str, Any]] = {}


def pytest_collection_finish(session: Any) -> None:
    # Test modules imported dspy modules of their own while being collected: swap in those too.
    _swap()


def pytest_runtest_logreport(report: Any) -> None:
    entry = _results.setdefault(report.nodeid, {"outcome": "passed", "message": ""})
    if report.failed:
        entry["outcome"] = "failed"
        entry["message"] = _last_line(report)
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"


def pytest_sessionfinish(session: Any) -> None:
    path = os.environ.get("DSPY_TESTS_RESULTS")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(_results, out, indent=1, sort_keys=True)


def _last_line(report: Any) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return text.strip().splitlines()[0][:300] if text.strip() else ""
