"""pytest plugin for tools/dspy_tests.py: dspy's ``PythonInterpreter`` is ``RustInterpreter`` everywhere dspy
or a test module can reach it, and each test's outcome is written to the JSON file named by
``DSPY_TESTS_RESULTS``.

Loaded with ``-p dspy_tests_swap`` before any test module is imported, so ``from
dspy.primitives.python_interpreter import PythonInterpreter`` in a test gets ``RustInterpreter``.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from typing import Any

import dspy.primitives.python_interpreter as python_interpreter

from dspy_rust_interpreter import RustInterpreter

_ORIGINAL = python_interpreter.PythonInterpreter


def _swap() -> None:
    # Every loaded module that bound dspy's class by name (dspy, dspy.primitives, dspy.predict.rlm, ...), and
    # every default argument that holds it (RLM, CodeAct, ProgramOfThought and Flex take
    # `interpreter_factory=PythonInterpreter`, bound when dspy was imported).
    for name, module in list(sys.modules.items()):
        if name != "dspy" and not name.startswith("dspy."):
            continue
        try:
            if getattr(module, "PythonInterpreter", None) is _ORIGINAL:
                module.PythonInterpreter = RustInterpreter
            for value in list(vars(module).values()):
                for function in _functions_of(value):
                    _swap_defaults(function)
        except Exception:  # noqa: BLE001 - a module whose attributes cannot be read is not dspy's
            continue


def _functions_of(value: Any) -> list[Any]:
    if isinstance(value, type):
        return [inspect.unwrap(attr) for attr in vars(value).values() if inspect.isfunction(inspect.unwrap(attr))]
    return [inspect.unwrap(value)] if inspect.isfunction(inspect.unwrap(value)) else []


def _swap_defaults(function: Any) -> None:
    defaults = function.__defaults__
    if defaults and any(default is _ORIGINAL for default in defaults):
        function.__defaults__ = tuple(RustInterpreter if default is _ORIGINAL else default for default in defaults)
    keyword_defaults = function.__kwdefaults__
    if keyword_defaults and any(default is _ORIGINAL for default in keyword_defaults.values()):
        function.__kwdefaults__ = {key: RustInterpreter if d is _ORIGINAL else d for key, d in keyword_defaults.items()}


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
