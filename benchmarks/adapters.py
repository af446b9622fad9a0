"""One uniform adapter per implementation measured by the benchmark.

Every adapter offers the same four things the workloads need: ``create(tools)`` (a new session, not yet
started), ``execute(session, code, variables)``, ``shutdown(session)`` and ``probe()`` (import what it needs and
say why it cannot run, or None). The workloads never touch an implementation directly, so a number in one column
means the same work as the number beside it.

The adapters run inside a benchmark child process (see ``workloads.py``); importing this module imports none of
the implementations, so a peer that is missing only fails its own probe.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable
from typing import Any

Tools = dict[str, Callable[..., Any]]


class Adapter:
    """The interface every implementation is driven through."""

    name = ""  # the key in results.json
    label = ""  # the column heading
    # True when execute() goes to another process: RSS must then include the process's children.
    uses_subprocesses = False

    def probe(self) -> str | None:
        """Import the implementation and check it can run here; the reason it cannot, else None."""
        return None

    def create(self, tools: Tools | None = None) -> Any:
        raise NotImplementedError

    def create_with_packages(self, packages: list[str]) -> Any:
        """A new session in which the installed ``packages`` import; raises where the implementation has no way."""
        raise NotImplementedError(f"{self.label} cannot import installed third-party packages")

    def execute(self, session: Any, code: str, variables: dict[str, Any] | None = None) -> Any:
        return session.execute(code, variables)

    def shutdown(self, session: Any) -> None:
        session.shutdown()

    def pool(self) -> Any:
        """A pool of ready sessions (``checkout()``, ``wait_ready()``, ``close()``), or None without one."""
        return None


class RustInterpreterAdapter(Adapter):
    name = "rust"
    label = "RustInterpreter"
    # Each session runs in a process forked from the zygote.
    uses_subprocesses = True

    def probe(self) -> str | None:
        from dspy_rust_interpreter import RustInterpreter

        self._cls = RustInterpreter
        return None

    def create(self, tools: Tools | None = None) -> Any:
        # timeout=None: a benchmark workload must never be cut short by the default 30 s limit.
        return self._cls(tools=tools, timeout=None)

    def create_with_packages(self, packages: list[str]) -> Any:
        # Sessions are forked from a prepared process that has imported the set (the first one builds it).
        return self._cls(timeout=None, packages=packages)

    def pool(self) -> Any:
        from dspy_rust_interpreter import InterpreterPool

        return _ReadyPool(InterpreterPool(size=1, timeout=None))


class _ReadyPool:
    """An ``InterpreterPool`` the benchmark can wait on until its sandbox is built."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    def wait_ready(self) -> None:
        import time

        while not self._pool.ready_count():
            time.sleep(0.005)

    def checkout(self) -> Any:
        return self._pool.checkout()

    def close(self) -> None:
        self._pool.close()


class ExecSession:
    """Plain CPython ``exec()`` in a dict namespace: no isolation at all, the cost floor.

    Printed output is captured like a REPL would (a StringIO swapped in for stdout), and a trailing expression
    is not evaluated separately: the floor does the least work that still returns what was printed.
    """

    def __init__(self, tools: Tools | None) -> None:
        self.namespace: dict[str, Any] = {"__name__": "__bench__"}
        self.namespace.update(tools or {})

    def execute(self, code: str, variables: dict[str, Any] | None = None) -> str:
        if variables:
            self.namespace.update(variables)
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, "<cell>", "exec"), self.namespace)
        return buffer.getvalue()

    def shutdown(self) -> None:
        self.namespace.clear()


class CPythonExecAdapter(Adapter):
    name = "exec"
    label = "CPython exec"

    def create(self, tools: Tools | None = None) -> Any:
        return ExecSession(tools)

    def create_with_packages(self, packages: list[str]) -> Any:
        return ExecSession(None)  # the host's own site-packages: the first import pays, later ones are lookups


class LocalInterpreterAdapter(Adapter):
    name = "local"
    label = "dspy Local"
    uses_subprocesses = True

    def probe(self) -> str | None:
        from dspy.primitives.local_interpreter import LocalInterpreter

        self._cls = LocalInterpreter
        return None

    def create(self, tools: Tools | None = None) -> Any:
        return self._cls(tools=tools)

    def create_with_packages(self, packages: list[str]) -> Any:
        return self._cls()  # a CPython worker subprocess that imports from the host's environment


class MontyAdapter(Adapter):
    name = "monty"
    label = "Monty (dspy adapter)"
    uses_subprocesses = True  # pydantic-monty 1.x runs every execute in a pool of worker subprocesses

    def probe(self) -> str | None:
        try:
            from dspy_monty_interpreter import MontyInterpreter
        except ImportError as exc:
            return f"dspy-monty-interpreter is not installed ({exc}); pip install '.[bench]'"
        self._cls = MontyInterpreter
        return None

    def create(self, tools: Tools | None = None) -> Any:
        # Monty takes tools as a dict like the others and binds positional arguments through the signature;
        # its default limits are kept (no resource_limits), as a user of the adapter would get them.
        return self._cls(tools=tools)


class PyodideAdapter(Adapter):
    name = "pyodide"
    label = "Pyodide (dspy)"
    uses_subprocesses = True

    def probe(self) -> str | None:
        try:
            from deno import find_deno_bin
        except ImportError:
            return "no Deno binary: the deno PyPI package is not installed; pip install '.[bench]'"
        if not os.path.exists(find_deno_bin()):
            return f"the deno package's binary is missing at {find_deno_bin()}"
        from dspy.primitives.python_interpreter import PythonInterpreter

        self._cls = PythonInterpreter
        # dspy's runner.js imports pyodide from npm and a module from deno.land at start: with no network (and
        # an empty Deno cache) Deno exits before the sandbox exists. Try once and report Deno's own words.
        session = self.create()
        try:
            session.execute("print(1)")
        except Exception as exc:  # noqa: BLE001 - any failure here means this peer cannot be measured
            with contextlib.suppress(Exception):
                session.shutdown()
            reason = "cannot start offline: " + first_meaningful_line(str(exc))
            # dspy sometimes reports only "No response during health check" (it read Deno's stdout closing
            # before Deno's exit status): run Deno's command once more on its own to get Deno's words.
            said = deno_error(session.deno_command)
            return reason + (f"; Deno says: {said}" if said and said not in reason else "")
        with contextlib.suppress(Exception):
            session.shutdown()
        return None

    def create(self, tools: Tools | None = None) -> Any:
        return self._cls(tools=tools)


def first_meaningful_line(message: str) -> str:
    """Deno's errors carry ANSI colours and a long backtrace: keep the lines that say what failed."""
    import re

    plain = re.sub(r"\x1b\[[0-9;]*m", "", message)
    lines = [line.strip() for line in plain.splitlines() if line.strip()]
    wanted = [line for line in lines if "error" in line.lower()] or lines
    return " | ".join(wanted[:3])[:400]


def deno_error(command: list[str]) -> str | None:
    """The error lines Deno prints when it runs ``command`` with nothing on stdin, or None."""
    import subprocess

    try:
        from dspy.primitives.python_interpreter import _deno_subprocess_env

        done = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, env=_deno_subprocess_env()
        )
    except Exception:  # noqa: BLE001 - only a better message was at stake
        return None
    return first_meaningful_line(done.stderr) if "error" in done.stderr.lower() else None


ADAPTERS: dict[str, type[Adapter]] = {
    adapter.name: adapter
    for adapter in (RustInterpreterAdapter, CPythonExecAdapter, LocalInterpreterAdapter, MontyAdapter, PyodideAdapter)
}
