"""Mounts: the mount options (ours, and dspy ``PythonInterpreter``'s ``enable_read_paths``/``enable_write_paths``/
``sync_files``), and what the model is told about the mounts (docs/files.md)."""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable
from typing import Any

from . import _native
from ._errors import InvalidNameError

Mount = _native.Mount

# Where dspy's PythonInterpreter shows the files of enable_read_paths/enable_write_paths.
DSPY_MOUNT_FOLDER = "/sandbox"
# What the model is told about each mount: this many example paths, from a walk of at most this many entries.
LISTED_EXAMPLES = 5
LISTING_WALK_LIMIT = 10_000
MAX_SHOWN_NAME = 120


def dspy_path_mounts(
    read_paths: Iterable[Any], write_paths: Iterable[Any], sync_files: bool, other_mounts: Iterable[Mount] = ()
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
            name = os.path.basename(os.path.normpath(host_path))
            if name in ("", ".", "..", "/"):
                raise ValueError(
                    f"enable_read_paths/enable_write_paths: {host_path!r} has no name to appear under in "
                    f"{DSPY_MOUNT_FOLDER} (each path appears as {DSPY_MOUNT_FOLDER}/<its name>); give a folder or "
                    "file below it"
                )
            sandbox_path = f"{DSPY_MOUNT_FOLDER}/{name}"
            other = modes.get(sandbox_path)
            if other is not None and os.path.realpath(other[0]) != os.path.realpath(host_path):
                raise InvalidNameError(
                    f"enable_read_paths/enable_write_paths need unique basenames: {other[0]} and {host_path} "
                    f"would both be {sandbox_path}"
                )
            if other is None or mode != "ro":
                modes[sandbox_path] = (host_path, mode)
    _native.check_mount_paths([*(mount.path for mount in other_mounts), *modes])
    for host_path, mode in modes.values():
        if mode != "ro" and not os.path.exists(host_path):
            folder = os.path.dirname(os.path.abspath(host_path))
            if not os.path.isdir(folder):
                raise FileNotFoundError(
                    f"enable_write_paths: {host_path!r} does not exist and neither does its folder {folder!r}: "
                    "a missing write path is made as an empty file, in a folder that exists; create the folder first"
                )
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
    return (
        "Files: open(), pathlib, os, glob, shutil and tempfile work on the sandbox's own filesystem (in memory, "
        "kept across executions), which has these folders of the host mounted:\n" + "\n".join(lines)
    )


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
