"""tools/dspy_tests.py (dspy's interpreter tests against RustInterpreter): its pytest plugin swaps the class
everywhere a test reaches it and records outcomes, and its report classifies failures by the committed table.
dspy's own test files are fetched by the tool from dspy's repository, so these tests use small ones of ours."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"

SWAPPED_TESTS = """
import dspy
import dspy.primitives.python_interpreter as python_interpreter
from dspy.primitives.python_interpreter import PythonInterpreter

from dspy_rust_interpreter import RustInterpreter


def test_every_name_for_the_class_is_ours():
    assert PythonInterpreter is RustInterpreter
    assert dspy.PythonInterpreter is RustInterpreter
    assert python_interpreter.PythonInterpreter is RustInterpreter


def test_the_modules_default_factories_are_ours():
    import inspect

    for module in (dspy.RLM, dspy.ProgramOfThought, dspy.CodeAct):
        default = inspect.signature(module.__init__).parameters["interpreter_factory"].default
        assert default is RustInterpreter, module


def test_it_runs_code():
    with PythonInterpreter() as interp:
        assert interp.execute("print(6 * 7)") == "42\\n"


def test_a_failure_is_recorded_with_its_message():
    with PythonInterpreter() as interp:
        assert interp.execute("1 + 1") == 3
"""


def test_the_plugin_swaps_the_class_and_records_each_outcome(tmp_path):
    (tmp_path / "test_swapped.py").write_text(SWAPPED_TESTS)
    results = tmp_path / "results.json"
    env = {
        **os.environ,
        "DSPY_TESTS_RESULTS": str(results),
        "PYTHONPATH": os.pathsep.join([str(TOOLS), os.environ.get("PYTHONPATH", "")]),
    }
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "dspy_tests_swap", "-p", "no:cacheprovider", "-q", "test_swapped.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=300,
    )
    outcomes = json.loads(results.read_text())
    assert outcomes["test_swapped.py::test_every_name_for_the_class_is_ours"]["outcome"] == "passed"
    assert outcomes["test_swapped.py::test_it_runs_code"]["outcome"] == "passed"
    assert outcomes["test_swapped.py::test_the_modules_default_factories_are_ours"]["outcome"] == "passed"
    failed = outcomes["test_swapped.py::test_a_failure_is_recorded_with_its_message"]
    assert failed["outcome"] == "failed" and "assert 2 == 3" in failed["message"]


def _load_tool():
    spec = importlib.util.spec_from_file_location("dspy_tests_tool", TOOLS / "dspy_tests.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_report_classifies_failures_by_the_table_and_names_the_rest(tmp_path, capsys):
    tool = _load_tool()
    listed_deno = "primitives/test_python_interpreter.py::test_process_death_ends_stateful_session"
    listed_different = "primitives/test_python_interpreter.py::test_serialize_tuple"
    listed_but_passing = "primitives/test_python_interpreter.py::test_exception_args"
    results = {
        f"tests/{listed_deno}": {"outcome": "failed", "message": "AttributeError: deno_process"},
        f"tests/{listed_different}": {"outcome": "failed", "message": "assert (1, 2) == [1, 2]"},
        f"tests/{listed_but_passing}": {"outcome": "passed", "message": ""},
        "tests/primitives/test_python_interpreter.py::test_new_behaviour": {"outcome": "failed", "message": "boom"},
        "tests/predict/test_rlm.py::test_ok": {"outcome": "passed", "message": ""},
    }
    out = tmp_path / "report.json"
    assert tool.report(results, "9.9.9", out) == 1
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.startswith("primitives/test_python_interpreter.py"))
    # passed, failed, Deno-specific, different, unexplained, skipped
    assert row.split()[1:] == ["1", "3", "1", "1", "1", "0"]
    assert "unexplained failures:\n  primitives/test_python_interpreter.py::test_new_behaviour\n      boom" in printed
    assert f"listed as failing but passed (take them off the list):\n  {listed_but_passing}" in printed
    saved = json.loads(out.read_text())["results"]
    assert saved[f"tests/{listed_deno}"]["class"] == "Deno-specific"
    assert saved[f"tests/{listed_different}"]["class"] == "different"


def test_every_reason_names_tests_once_and_says_why():
    sys.path.insert(0, str(TOOLS))
    try:
        from dspy_tests_reasons import DENO, DIFFERENT, REASONS
    finally:
        sys.path.remove(str(TOOLS))
    named = [test for reason in REASONS for test in reason.tests]
    assert len(named) == len(set(named))
    assert all(reason.kind in (DENO, DIFFERENT) and len(reason.why) > 30 for reason in REASONS)
