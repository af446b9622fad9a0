"""Fixtures for the package's own tests (the generic protocol is covered by conformance/)."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import RustInterpreter


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
