"""A zygote's process: ``python -I -S`` loading this package's extension by its file path, serving session
processes over a control socket (``src/worker/zygote.rs``). Apart from ``_zygote`` (which keeps one per package
set) because the plain zygote is started when this package is imported, before dspy is: it needs nothing of
dspy.

Why at import: preparing a zygote (CPython's start, the extension, the RustPython VM and the modules every
session finds imported) takes ~50 ms on two cores, the first session's latency if it started on first use.
Started at import, it prepares on another core while the rest of the import (dspy's: ~0.7 s) runs, and RLM's
first call finds it ready. ``DSPY_RUST_INTERPRETER_PRESTART=0`` turns it off (the zygote then starts on first
use); a process that never makes a session ends it at exit, unused, with a signal."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile

from . import _native

# Loads the extension module by its file path (so it works from an installed wheel as from a checkout)
# and hands the zygote its control socket. `-I -S`: no user site, no environment variables, no `site`.
_LOADER = """\
import sys
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_loader
loader = ExtensionFileLoader("dspy_rust_interpreter._native", sys.argv[1])
module = module_from_spec(spec_from_loader(loader.name, loader))
loader.exec_module(module)
module.serve_zygote(int(sys.argv[2]), *sys.argv[3:])
"""

# The only variables the zygote (and so every session) gets: what the dynamic loader may need. The
# host's secrets stay out of every session's memory.
_PASSED_ENVIRONMENT = ("LD_LIBRARY_PATH",)

# Set to "0" to start the plain zygote on first use instead of at import.
PRESTART_VARIABLE = "DSPY_RUST_INTERPRETER_PRESTART"


def _tzdata_dir() -> str | None:
    """The folder of the host's ``tzdata`` package (the sandbox's ``zoneinfo`` data), if it has one."""
    spec = importlib.util.find_spec("tzdata")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))


class ZygoteProcess:
    """One zygote process and the host's end of its control socket. ``manifest``: the package set's manifest
    (``src/sandbox/zygote_data/bundle.rs``), for a set's zygote; None for the plain one."""

    def __init__(self, manifest: str | None = None) -> None:
        # Whether a session was ever asked of it: one that was not can be ended at once (it has no sessions).
        self.used = False
        self._folder = tempfile.TemporaryDirectory(prefix="dspy-rust-interpreter-") if manifest is not None else None
        extra = [_tzdata_dir() or ""]
        if manifest is not None and self._folder is not None:
            path = os.path.join(self._folder.name, "packages.manifest")
            with open(path, "w", encoding="utf-8") as file:
                file.write(manifest)
            extra.append(path)
        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _LOADER, _native.__file__, str(zygote_end.fileno())] + extra,
                pass_fds=[zygote_end.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={name: os.environ[name] for name in _PASSED_ENVIRONMENT if name in os.environ},
                # Its own process group: a terminal's Ctrl-C reaches the host only, and the zygote can end
                # the whole group (itself and its sessions) when the host goes away.
                start_new_session=True,
            )
        except BaseException:
            host_end.close()
            raise
        finally:
            zygote_end.close()
        self.control = host_end

    def stop(self) -> None:
        """Close the control socket: the zygote ends, and every session process with it. One never used ends
        now, not once it has finished preparing (a short script that imported this package exits at once)."""
        self.control.close()
        if not self.used:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._folder is not None:
            self._folder.cleanup()


_prestarted: ZygoteProcess | None = None


def prestart() -> None:
    """Start the plain zygote now, unless the environment says not to; a failure is left to the first use,
    which reports it."""
    global _prestarted
    if os.environ.get(PRESTART_VARIABLE, "1").strip() == "0" or _prestarted is not None:
        return
    try:
        _prestarted = ZygoteProcess()
    except Exception:  # noqa: BLE001 - importing this package never fails for it
        _prestarted = None


def take_prestarted() -> ZygoteProcess | None:
    """The zygote `prestart` started, handed to `_zygote` once."""
    global _prestarted
    taken, _prestarted = _prestarted, None
    return taken


def _forget_in_child() -> None:
    # A forked host starts a zygote of its own (see `_zygote._forget_in_child`).
    global _prestarted
    if _prestarted is not None:
        _prestarted.control.close()
        _prestarted = None


os.register_at_fork(after_in_child=_forget_in_child)
