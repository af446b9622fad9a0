"""dspy callbacks for interpreter methods, the way dspy's own interpreters report them.

dspy's ``PythonInterpreter`` and ``LocalInterpreter`` decorate ``start``, ``execute``, ``shutdown`` and
``invoke_tool`` with ``dspy.utils.callback.with_callbacks``, which calls ``on_interpreter_<op>_start/_end``
of the global (``dspy.settings.callbacks``) and instance (``self.callbacks``) handlers. ``reported`` applies
that same decorator, but lazily: importing dspy costs seconds, and without dspy loaded there can be no
callback handler, so then the method runs undecorated and ``callbacks=`` is simply ignored.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

Method = TypeVar("Method", bound=Callable[..., Any])


def dspy_loaded() -> bool:
    return "dspy.utils.callback" in sys.modules


def reported(method: Method) -> Method:
    decorated: Callable[..., Any] | None = None

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal decorated
        if not dspy_loaded():
            return method(self, *args, **kwargs)
        if decorated is None:
            decorated = _with_dspy_callbacks(method)
        return decorated(self, *args, **kwargs)

    return call  # type: ignore[return-value]


def _with_dspy_callbacks(method: Callable[..., Any]) -> Callable[..., Any]:
    try:
        from dspy.utils.callback import with_callbacks
    except Exception:  # noqa: BLE001 - a dspy we cannot use: no reporting, never an error
        return method
    return with_callbacks(method)


def active_callbacks(instance: Any) -> bool:
    """Whether any dspy callback handler (global or on ``instance``) would see a call right now."""
    if not dspy_loaded():
        return False
    try:
        import dspy

        return bool(dspy.settings.get("callbacks", []) or getattr(instance, "callbacks", None))
    except Exception:  # noqa: BLE001 - see _with_dspy_callbacks
        return False
