"""The zygote: one prepared sandbox process per host process, from which every session process is forked
(docs/process-isolation.md). Started with ``subprocess`` (the host itself is never forked): the plain one
when this package is imported (``_zygote_process``), a package set's on first use; started again if it dies;
it ends with the host, taking every session process with it.

Sessions with packages (the ``packages`` option) are forked from a zygote of their package set instead, which
read the packages' files and imported them before serving (``src/sandbox/zygote_data/bundle.rs``): one per distinct set,
at most ``MAX_PACKAGE_SETS`` per host process. A set's zygote is kept while any process of its group lives
(its sessions, their checkpoints and forks); past the bound, the least recently used set whose group is idle
is retired to make room, and only when none is idle is a new set refused."""

from __future__ import annotations

import atexit
import functools
import os
import threading

from . import _native
from ._errors import CodeInterpreterError
from ._packages import PackageSet, import_names
from ._zygote_process import ZygoteProcess, take_prestarted

# Distinct package sets with a zygote of their own, per host process (each holds its packages' files and
# imported modules in memory).
MAX_PACKAGE_SETS = 8


def _manifest(packages: PackageSet) -> str:
    """The manifest a package set's zygote reads (``src/sandbox/zygote_data/bundle.rs``)."""
    served_by_cpython = {name for name, _host in packages.cpython}
    lines = [
        f"file\t{sandbox_path}\t{host_path}\n"
        for sandbox_path, host_path in packages.entries
        if sandbox_path.rsplit("/", 1)[1] not in served_by_cpython
    ]
    lines += [f"import\t{module}\n" for module in import_names(packages)]
    lines += [f"cpython\t{name}\t{host_path}\n" for name, host_path in packages.cpython]
    return "".join(lines)


_lock = threading.Lock()
# The zygote of each package set (None: no packages).
_zygotes: dict[PackageSet | None, ZygoteProcess] = {}
# The plain zygote, when the package's import started it (`_zygote_process.prestart`).
_prestarted = take_prestarted()
if _prestarted is not None:
    _zygotes[None] = _prestarted


def _zygote(packages: PackageSet | None = None) -> ZygoteProcess:
    with _lock:
        current = _zygotes.pop(packages, None)
        if current is None or current.process.poll() is not None:
            if current is not None:
                current.stop()
            elif packages is not None and sum(key is not None for key in _zygotes) >= MAX_PACKAGE_SETS:
                _retire_an_idle_set()
            current = ZygoteProcess(_manifest(packages) if packages else None)
        _zygotes[packages] = current  # last: the most recently used
        current.used = True
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


def _discard(zygote: ZygoteProcess) -> None:
    with _lock:
        for key, current in list(_zygotes.items()):
            if current is zygote:
                del _zygotes[key]
    zygote.stop()


def prepare_zygote(packages: PackageSet) -> None:
    """Start the zygote of a package set, if it has none, so that it prepares while the caller goes on."""
    _zygote(packages)


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
    # The packages whose values cross as themselves (numpy's, pandas'): those the session's CPython serves.
    libraries = sorted({name.removesuffix(".py") for name, _host in packages.cpython}) if packages else []
    for attempt in range(2):
        zygote = _zygote(packages)
        try:
            return _native.Session(
                zygote.control.fileno(),
                options,
                package_mounts,
                zygote_source=source,
                stand_ins=stand_ins,
                libraries=libraries,
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
