"""The zygote: one prepared sandbox process per host process, from which every session process is forked
(docs/process-isolation.md). Started on first use with ``subprocess`` (the host itself is never forked),
started again if it dies; it ends with the host, taking every session process with it."""

from __future__ import annotations

import atexit
import importlib.util
import os
import socket
import subprocess
import sys
import threading
from typing import Any

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


def _tzdata_dir() -> str | None:
    """The folder of the host's ``tzdata`` package (the sandbox's ``zoneinfo`` data), if it has one."""
    spec = importlib.util.find_spec("tzdata")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))


class _Zygote:
    def __init__(self) -> None:
        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _LOADER, _native.__file__, str(zygote_end.fileno())]
                + ([tzdata] if (tzdata := _tzdata_dir()) else []),
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
        """Close the control socket: the zygote ends, and every session process with it."""
        self.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_lock = threading.Lock()
_current: _Zygote | None = None


def _zygote() -> _Zygote:
    global _current
    with _lock:
        if _current is None or _current.process.poll() is not None:
            if _current is not None:
                _current.stop()
            _current = _Zygote()
        return _current


def _discard(zygote: _Zygote) -> None:
    global _current
    with _lock:
        if _current is zygote:
            _current = None
    zygote.stop()


def live_control_fd() -> int:
    """The control socket of a live zygote (a new one if the current is gone), for a session whose rollback
    finds its own zygote dead; the caller duplicates it at once."""
    return _zygote().control.fileno()


def spawn(**options: Any) -> _native.Session:
    """A new session process with ``options`` (see ``_native.Session``); ConnectionError if no zygote can
    serve it."""
    for attempt in range(2):
        zygote = _zygote()
        try:
            return _native.Session(zygote.control.fileno(), zygote_source=live_control_fd, **options)
        except ConnectionError:
            # The zygote is gone (killed, or failed to start): start another once.
            _discard(zygote)
            if attempt == 1:
                raise
    raise AssertionError("unreachable")


@atexit.register
def _stop_at_exit() -> None:
    global _current
    with _lock:
        zygote, _current = _current, None
    if zygote is not None:
        zygote.stop()


def _forget_in_child() -> None:
    # A forked host starts a zygote of its own rather than sharing (and racing on) its parent's socket.
    # Its copy of the control socket is closed, so the parent's zygote still ends with the parent.
    global _current, _lock
    _lock = threading.Lock()
    if _current is not None:
        _current.control.close()
    _current = None


os.register_at_fork(after_in_child=_forget_in_child)
