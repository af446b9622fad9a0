"""The zygote: one prepared sandbox process per host process, from which every session process is forked
(docs/process-isolation.md). Started on first use with ``subprocess`` (the host itself is never forked),
started again if it dies; it ends with the host, taking every session process with it.

Sessions with packages (the ``packages`` option) are forked from a zygote of their package set instead, which
read the packages' files and imported them before serving (``src/sandbox/bundle.rs``): one per distinct set,
at most ``MAX_PACKAGE_SETS`` per host process. A set's zygote is kept while any process of its group lives
(its sessions, their checkpoints and forks); past the bound, the least recently used set whose group is idle
is retired to make room, and only when none is idle is a new set refused."""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import threading

from . import _native
from ._errors import CodeInterpreterError
from ._packages import PackageSet, import_names

# Distinct package sets with a zygote of their own, per host process (each holds its packages' files and
# imported modules in memory).
MAX_PACKAGE_SETS = 8

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


def _manifest(packages: PackageSet, folder: str) -> str:
    """The manifest a package set's zygote reads (``src/sandbox/bundle.rs``), written in ``folder``."""
    path = os.path.join(folder, "packages.manifest")
    with open(path, "w", encoding="utf-8") as file:
        for sandbox_path, host_path in packages.entries:
            file.write(f"file\t{sandbox_path}\t{host_path}\n")
        for module in import_names(packages):
            file.write(f"import\t{module}\n")
    return path


class _Zygote:
    def __init__(self, packages: PackageSet | None = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="dspy-rust-interpreter-") if packages else None
        extra = [_tzdata_dir() or ""]
        if packages and self._folder is not None:
            extra.append(_manifest(packages, self._folder.name))
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
        """Close the control socket: the zygote ends, and every session process with it."""
        self.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._folder is not None:
            self._folder.cleanup()


_lock = threading.Lock()
# The zygote of each package set (None: no packages).
_zygotes: dict[PackageSet | None, _Zygote] = {}


def _zygote(packages: PackageSet | None = None) -> _Zygote:
    with _lock:
        current = _zygotes.pop(packages, None)
        if current is None or current.process.poll() is not None:
            if current is not None:
                current.stop()
            elif packages is not None and sum(key is not None for key in _zygotes) >= MAX_PACKAGE_SETS:
                _retire_an_idle_set()
            current = _Zygote(packages)
        _zygotes[packages] = current  # last: the most recently used
        return current


def _retire_an_idle_set() -> None:
    """Stop the least recently used package set's zygote that serves no process, or refuse a new set."""
    for key, zygote in list(_zygotes.items()):
        if key is not None and not _group_has_others(zygote.process.pid):
            del _zygotes[key]
            zygote.stop()
            return
    raise CodeInterpreterError(
        f"this process has live sessions of {MAX_PACKAGE_SETS} different package sets; use fewer distinct "
        "`packages` lists at once (each set keeps a prepared process with its packages imported)"
    )


def _group_has_others(zygote_pid: int) -> bool:
    """Whether a process other than the zygote is in its process group: a session, a checkpoint or a fork (all
    forked from it, and ended with it)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != zygote_pid:
            try:
                if os.getpgid(int(entry)) == zygote_pid:
                    return True
            except OSError:
                continue
    return False


def _discard(zygote: _Zygote) -> None:
    with _lock:
        for key, current in list(_zygotes.items()):
            if current is zygote:
                del _zygotes[key]
    zygote.stop()


def live_control_fd(packages: PackageSet | None = None) -> int:
    """The control socket of a live zygote of this package set (a new one if it is gone), for a session whose
    rollback finds its own zygote dead; the caller duplicates it at once."""
    return _zygote(packages).control.fileno()


def spawn(
    packages: PackageSet | None,
    options: _native.Options,
    package_mounts: list[_native.Mount],
    stand_ins: list[tuple[str, str | None]],
) -> _native.Session:
    """A new session process with ``options``, forked from the zygote of its package set (whose mounts are
    ``package_mounts``), which first makes the stand-ins of the tools ``stand_ins`` (name, source) if it has
    not yet; ConnectionError if no zygote can serve it."""
    source = functools.partial(live_control_fd, packages)
    for attempt in range(2):
        zygote = _zygote(packages)
        try:
            return _native.Session(
                zygote.control.fileno(), options, package_mounts, zygote_source=source, stand_ins=stand_ins
            )
        except ConnectionError:
            # The zygote is gone (killed, or failed to start): start another once.
            _discard(zygote)
            if attempt == 1:
                raise
    raise AssertionError("unreachable")


@atexit.register
def _stop_at_exit() -> None:
    with _lock:
        zygotes = list(_zygotes.values())
        _zygotes.clear()
    for zygote in zygotes:
        zygote.stop()


def _forget_in_child() -> None:
    # A forked host starts a zygote of its own rather than sharing (and racing on) its parent's socket.
    # Its copy of the control socket is closed, so the parent's zygote still ends with the parent.
    global _lock
    _lock = threading.Lock()
    for zygote in _zygotes.values():
        zygote.control.close()
    _zygotes.clear()


os.register_at_fork(after_in_child=_forget_in_child)
