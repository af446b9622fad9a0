"""Checks that need a newer dspy than the one installed are reported as not applicable (a skip naming the
version they need), never as errors: the kit runs on every dspy it supports (3.3 and later).

Mark such a test ``@pytest.mark.needs_dspy("3.4", "the sandbox dspy facade")`` and import the newer names
inside it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

MARKER = "needs_dspy(version, feature): not applicable (skipped) on a dspy older than version"


def installed_version() -> tuple[int, ...]:
    import dspy

    return _parse(dspy.__version__)


def _parse(version: str) -> tuple[int, ...]:
    parts = []
    for part in version.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def mark_not_applicable(items: Iterable[pytest.Item], under: Path) -> None:
    """Skip, as not applicable, each test under ``under`` whose ``needs_dspy`` marker asks for a newer dspy."""
    installed = None
    for item in items:
        marker = item.get_closest_marker("needs_dspy")
        if marker is None or under not in Path(str(item.fspath)).parents:
            continue
        if installed is None:
            installed = installed_version()
        required, feature = marker.args
        if installed < _parse(required):
            shown = ".".join(map(str, installed))
            item.add_marker(
                pytest.mark.skip(reason=f"not applicable: needs dspy >= {required} ({feature}); dspy {shown} is installed")
            )
