"""Files: the mount options (ours, and dspy ``PythonInterpreter``'s ``enable_read_paths``/``enable_write_paths``/
``sync_files``), what the model is told about the mounts, and ``interp.files``, the host's hands on a session's
files (docs/files.md)."""

from __future__ import annotations

import builtins
import os
import posixpath
import stat
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable

from . import _native
from ._errors import CodeInterpreterError, InvalidNameError

if TYPE_CHECKING:
    from ._interpreter import RustInterpreter

Mount = _native.Mount

# Where dspy's PythonInterpreter shows the files of enable_read_paths/enable_write_paths.
DSPY_MOUNT_FOLDER = "/sandbox"
# What the model is told about each mount: this many example paths, from a walk of at most this many entries.
LISTED_EXAMPLES = 5
LISTING_WALK_LIMIT = 10_000
MAX_SHOWN_NAME = 120
# Errors of the session's filesystem that the host API raises as themselves.
_PASSED_ERRORS = frozenset({
    "OSError", "FileNotFoundError", "FileExistsError", "IsADirectoryError", "NotADirectoryError",
    "PermissionError", "ValueError", "TypeError",
})


def check_mounts(mounts: Any) -> tuple[Mount, ...]:
    if isinstance(mounts, (str, bytes, Mount)) or not isinstance(mounts, (list, tuple)):
        raise TypeError(f"mounts must be a list of Mount(path, host_path, mode), got {mounts!r}")
    for mount in mounts:
        if not isinstance(mount, Mount):
            raise TypeError(f"each mount must be a Mount(path, host_path, mode), got {mount!r}")
    check_distinct(mounts)
    return tuple(mounts)


def check_distinct(mounts: Iterable[Mount | str]) -> None:
    """ValueError when two mounts (or sandbox paths) share a folder, or one is inside another."""
    paths = sorted(mount if isinstance(mount, str) else mount.path for mount in mounts)
    for first, second in zip(paths, paths[1:]):
        if second == first or second.startswith(first + "/"):
            raise ValueError(f"mounts {first} and {second} overlap: each needs a folder of its own")


def dspy_path_mounts(
    read_paths: Iterable[Any], write_paths: Iterable[Any], sync_files: bool, other_mounts: tuple[Mount, ...] = ()
) -> tuple[Mount, ...]:
    """dspy's file options as mounts, with dspy's meaning: each path appears as ``/sandbox/<its name>``; read paths
    read-only; write paths made if missing, and written back to the host (``sync_files``, the default) or kept in
    the session (``sync_files=False``). A file given as both is mounted once, writable; two different files with
    one name are refused (dspy's "unique basenames"), as are paths that overlap ``other_mounts``, before
    anything is made on the host."""
    modes: dict[str, tuple[str, str]] = {}  # sandbox path -> (host path, mode)
    for paths, mode in ((read_paths, "ro"), (write_paths, "rw" if sync_files else "overlay")):
        if isinstance(paths, (str, bytes, os.PathLike)):
            raise TypeError(f"enable_read_paths/enable_write_paths take a list of paths, got {paths!r}")
        for path in paths:
            host_path = os.fspath(path)
            sandbox_path = f"{DSPY_MOUNT_FOLDER}/{os.path.basename(os.path.normpath(host_path))}"
            other = modes.get(sandbox_path)
            if other is not None and os.path.realpath(other[0]) != os.path.realpath(host_path):
                raise InvalidNameError(
                    f"enable_read_paths/enable_write_paths need unique basenames: {other[0]} and {host_path} "
                    f"would both be {sandbox_path}"
                )
            if other is None or mode != "ro":
                modes[sandbox_path] = (host_path, mode)
    check_distinct([*other_mounts, *modes])
    for host_path, mode in modes.values():
        if mode != "ro" and not os.path.exists(host_path):
            with open(host_path, "a"):
                pass
    return tuple(Mount(sandbox_path, host_path, mode) for sandbox_path, (host_path, mode) in modes.items())


_MODE_TEXT = {"ro": "read-only", "rw": "read-write: writes go to the host", "overlay": "writable: changes stay in this session"}


def describe_mounts(mounts: Iterable[Mount]) -> str:
    """What the model is told about ``mounts``: each path and mode, counts by extension and a few example files."""
    lines = []
    for mount in mounts:
        head = f"- {mount.path} ({_MODE_TEXT[mount.mode]})"
        if os.path.isfile(mount.host_path):
            lines.append(f"{head}: a file of {os.path.getsize(mount.host_path)} bytes")
            continue
        files, folders, examples, kinds, complete = _survey(mount)
        counts = ", ".join(f"{ext or 'no extension'}: {n}" for ext, n in kinds.most_common(6))
        more = "" if complete else " (at least)"
        text = f"{head}: {files} files{more} in {folders} folders"
        if counts:
            text += f" ({counts})"
        if examples:
            text += "; e.g. " + ", ".join(examples)
        lines.append(text)
    if not lines:
        return ""
    return ("Files: open(), pathlib, os, glob, shutil and tempfile work on the sandbox's own filesystem (in memory, "
            "kept across executions), which has these folders of the host mounted:\n" + "\n".join(lines))


def _survey(mount: Mount) -> tuple[int, int, list[str], Counter[str], bool]:
    """Files, folders, example paths and counts by extension of what the mount shows, from a walk of at most
    ``LISTING_WALK_LIMIT`` entries (folders included) that stays on the folder's filesystem. Names the model
    should not read as instructions (control characters, overlong) are counted but never shown."""
    files = folders = seen = 0
    examples: list[str] = []
    kinds: Counter[str] = Counter()
    root_device = os.stat(mount.host_path).st_dev
    pending = [mount.host_path]
    while pending:
        top = pending.pop()
        try:
            entries = os.scandir(top)
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                if seen > LISTING_WALK_LIMIT:
                    return files, folders, examples, kinds, False
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_dev != root_device:
                    continue  # another filesystem: not shown in the sandbox
                if stat.S_ISDIR(info.st_mode):
                    folders += 1
                    pending.append(entry.path)
                elif stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                    files += 1
                    extension = os.path.splitext(entry.name)[1].lower()
                    kinds[extension if _showable(extension) else "other"] += 1
                    relative = os.path.relpath(entry.path, mount.host_path)
                    if len(examples) < LISTED_EXAMPLES and _showable(relative):
                        examples.append(f"{mount.path}/{relative}")
    examples.sort()
    return files, folders, examples, kinds, True


def _showable(name: str) -> bool:
    return name.isprintable() and len(name) <= MAX_SHOWN_NAME


class SessionFiles:
    """``interp.files``: put files into the session and take them out, between executions. Paths are the sandbox's
    (absolute); a mount's files are its host folder's."""

    def __init__(self, interpreter: RustInterpreter) -> None:
        self._interpreter = interpreter

    def write(self, path: str, data: str | bytes) -> None:
        """Make the file at ``path`` hold ``data`` (str is written as UTF-8), creating its folders."""
        if not isinstance(data, (str, bytes)):
            raise TypeError(f"data must be str or bytes, not {type(data).__name__}")
        self._run("files_write", _checked(path), data)

    def read(self, path: str) -> bytes:
        """The bytes of the file at ``path``."""
        return self._run("files_read", _checked(path))

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return self.read(path).decode(encoding)

    def list(self) -> builtins.list[str]:
        """The files of the session's own filesystem (not those of its mounts), sorted."""
        return _checked_paths(self._run("files_list"))

    def written(self) -> builtins.list[str]:
        """The files the last ``execute()`` created or changed (in memory and in mounts), sorted."""
        return _checked_paths(self._run("files_written"))

    def _run(self, method: str, *args: Any) -> Any:
        interpreter = self._interpreter
        interpreter._refuse_reentry(f"files.{method.removeprefix('files_')}")
        with interpreter._lock:
            session = interpreter._ensure_session()
            outcome = getattr(session, method)(*args)
        kind = outcome.kind
        if kind == _native.OutcomeKind.Value:
            return outcome.value
        if kind == _native.OutcomeKind.Error:
            exception = getattr(builtins, outcome.error_type, None) if outcome.error_type in _PASSED_ERRORS else None
            if exception is not None:
                raise exception(outcome.message)
            raise CodeInterpreterError(f"{outcome.error_type}: {outcome.message}")
        raise CodeInterpreterError(outcome.message or "the session's files could not be reached")


def _checked_paths(paths: Any) -> builtins.list[str]:
    """The session's answer, trusted only as far as checked: absolute, normalised sandbox paths (a program may
    map a mount's paths to host paths)."""
    if not isinstance(paths, builtins.list) or not all(
        isinstance(p, str) and p.startswith("/") and posixpath.normpath(p) == p and "\0" not in p and not p.startswith("//")
        for p in paths
    ):
        raise CodeInterpreterError("the session answered with paths that are not absolute and normalised")
    return sorted(set(paths))


def _checked(path: Any) -> str:
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, not {type(path).__name__}")
    if not path.startswith("/"):
        raise ValueError(f"path must be absolute in the sandbox (start with '/'), got {path!r}")
    return path
