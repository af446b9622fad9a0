"""``interp.files``: the host's hands on a session's files, between executions (docs/files.md)."""

from __future__ import annotations

import builtins
import posixpath
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from . import _native
from ._errors import CodeInterpreterError
from ._outcome import command_result


class SessionFiles:
    """``interp.files``: put files into the session and take them out, between executions. Paths are the sandbox's
    (absolute); a mount's files are its host folder's."""

    def __init__(self, session_for: Callable[[str], AbstractContextManager[_native.Session]]) -> None:
        # The interpreter's session, held for one operation (named for the error a tool's re-entry gets).
        self._session_for = session_for

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
        with self._session_for(f"files.{method.removeprefix('files_')}") as session:
            outcome = getattr(session, method)(*args)
        return command_result(outcome)


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
