"""Options, markers and fixtures of the CodeInterpreter conformance kit.

The interpreter under test is named on the command line::

    pytest conformance --interpreter package.module:Class

The class is imported lazily (in the ``interpreter_cls`` fixture), so collection never depends on the
default package being importable.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from . import dspy_versions

pytest.register_assert_rewrite("conformance._support")

DEFAULT_INTERPRETER = "dspy_rust_interpreter:RustInterpreter"

MARKERS = {
    "final_family": (
        "FINAL()/FINAL_VAR()/FinalAnswerResult protocol from the seed design doc; released dspy interpreters "
        "do not implement it (deselect with -m 'not final_family')"
    ),
    "sandbox": (
        "asserts isolation from the host (files, environment, processes); non-sandbox interpreters fail these "
        "(deselect with -m 'not sandbox')"
    ),
    "rlm": "drives the interpreter through dspy.RLM / the dspy sandbox facade with a scripted DummyLM",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "DSPy CodeInterpreter conformance kit")
    group.addoption(
        "--interpreter",
        action="store",
        default=DEFAULT_INTERPRETER,
        metavar="MODULE:CLASS",
        help=f"CodeInterpreter class under test, as 'package.module:Class' (default: {DEFAULT_INTERPRETER})",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    config.addinivalue_line("markers", dspy_versions.MARKER)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    dspy_versions.mark_not_applicable(items, Path(__file__).parent)


def pytest_report_header(config: pytest.Config) -> str:
    return f"conformance interpreter: {_interpreter_spec(config)}"


def _interpreter_spec(config: pytest.Config) -> str:
    # getoption with a default: tolerate this conftest being loaded late (e.g. `pytest` run from the repo root).
    return config.getoption("interpreter", default=DEFAULT_INTERPRETER) or DEFAULT_INTERPRETER


def load_interpreter_class(spec: str) -> type:
    """Resolve 'package.module:Class' (or 'package.module.Class') to a class."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep:
        module_name, _, attr_path = spec.rpartition(".")
    if not module_name or not attr_path:
        raise ValueError(f"--interpreter must look like 'package.module:Class', got {spec!r}")
    module = importlib.import_module(module_name)
    obj: Any = module
    for part in attr_path.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise TypeError(f"--interpreter {spec!r} resolved to {obj!r}, which is not a class")
    return obj


class InterpreterFactory:
    """Callable fixture value: ``make_interpreter(**kwargs)`` builds an instance and remembers it.

    Every instance it built (or was given through ``track``) is shut down at test teardown.
    """

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.instances: list[Any] = []

    def __call__(self, **kwargs: Any) -> Any:
        return self.track(self.cls(**kwargs))

    def track(self, instance: Any) -> Any:
        self.instances.append(instance)
        return instance

    def shutdown_all(self) -> None:
        errors = []
        for instance in reversed(self.instances):
            try:
                instance.shutdown()
            except Exception as exc:  # shutdown() must be idempotent and must not raise
                errors.append(f"{type(instance).__name__}.shutdown() raised {type(exc).__name__}: {exc}")
        self.instances.clear()
        if errors:
            pytest.fail("; ".join(errors), pytrace=False)


@pytest.fixture(scope="session")
def interpreter_spec(pytestconfig: pytest.Config) -> str:
    return _interpreter_spec(pytestconfig)


@pytest.fixture(scope="session")
def interpreter_cls(interpreter_spec: str) -> type:
    try:
        return load_interpreter_class(interpreter_spec)
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    # Fail (never skip): every test then reports this one clear reason.
    pytest.fail(
        f"cannot load the interpreter under test {interpreter_spec!r}: {problem} (pass --interpreter package.module:Class)",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def interpreter_module(interpreter_cls: type) -> Any:
    return sys.modules[interpreter_cls.__module__]


@pytest.fixture(scope="session")
def final_answer_result_cls(interpreter_module: Any) -> type | None:
    """The seed protocol's FinalAnswerResult, looked up on the interpreter's module (None if absent)."""
    return getattr(interpreter_module, "FinalAnswerResult", None)


@pytest.fixture
def make_interpreter(interpreter_cls: type):
    factory = InterpreterFactory(interpreter_cls)
    yield factory
    factory.shutdown_all()


@pytest.fixture
def interpreter(make_interpreter: InterpreterFactory) -> Any:
    return make_interpreter()
