"""Fixtures for the package's own tests (the generic protocol is covered by conformance/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import dspy_versions
from dspy_rust_interpreter import RustInterpreter


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", dspy_versions.MARKER)
    # What `make test-aarch64` leaves out under qemu-user (tools/aarch64_check.py), run everywhere else:
    config.addinivalue_line("markers", "system_call_filter: what the seccomp filter refuses (qemu-user cannot install it)")
    config.addinivalue_line(
        "markers",
        "native_process: what qemu-user changes in a process (it ignores a guest's RLIMIT_DATA, holds a translation "
        "cache of its own) or in its speed (time limits a cell meets natively)",
    )


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
