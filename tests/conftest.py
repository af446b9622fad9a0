"""Fixtures for the package's own tests (the generic protocol is covered by conformance/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import dspy_versions

from dspy_rust_interpreter import RustInterpreter


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", dspy_versions.MARKER)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    dspy_versions.mark_not_applicable(items, Path(__file__).parent)


@pytest.fixture
def interp():
    """A fresh interpreter, shut down after the test."""
    interpreter = RustInterpreter()
    yield interpreter
    interpreter.shutdown()


@pytest.fixture
def make_interp():
    """Build interpreters with arguments (tools=..., output_fields=...); all are shut down after the test."""
    created: list[RustInterpreter] = []

    def make(**kwargs):
        interpreter = RustInterpreter(**kwargs)
        created.append(interpreter)
        return interpreter

    yield make
    for interpreter in created:
        interpreter.shutdown()
