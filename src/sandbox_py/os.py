"""The sandbox's stand-in for ``os``, written for dspy-rust-interpreter.

Standard-library modules import ``os`` for path helpers and constants. This module gives them those and
nothing that reaches the host: no files, no environment (``environ`` is empty), no processes, no network.
Anything else raises ``AttributeError``; operations that would touch the host raise ``PermissionError``.
``getpid()`` answers 1: the session is a process of its own, and which one on the host is not its business
(asyncio asks, to notice a fork).
"""

import sys

import posixpath as path

name = "posix"
sep = "/"
altsep = None
extsep = "."
pathsep = ":"
curdir = "."
pardir = ".."
defpath = "/bin:/usr/bin"
linesep = "\n"
devnull = "/dev/null"
supports_bytes_environ = False
SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2
F_OK, R_OK, W_OK, X_OK = 0, 4, 2, 1

error = OSError
environ = {}
sys.modules["os.path"] = path


def _refuse(operation):
    def refused(*args, **kwargs):
        raise PermissionError(f"os.{operation}() is not available in the sandbox: it has no host filesystem, "
                              "environment, processes or network; use the tools you were given")

    refused.__name__ = operation
    return refused


for _operation in ("stat", "lstat", "listdir", "scandir", "open", "remove", "unlink", "mkdir", "makedirs", "rmdir",
                   "rename", "replace", "chdir", "chmod", "system", "popen", "kill", "walk",
                   "access", "readlink", "symlink", "link", "utime", "truncate", "startfile", "execv", "execve",
                   "spawnv", "putenv", "unsetenv", "getlogin", "cpu_count"):
    globals()[_operation] = _refuse(_operation)
del _operation


def getpid():
    return 1


def getenv(key, default=None):
    return default


def getcwd():
    return "/"


def fspath(p):
    if isinstance(p, (str, bytes)):
        return p
    fspath_method = getattr(type(p), "__fspath__", None)
    if fspath_method is None:
        raise TypeError(f"expected str, bytes or os.PathLike object, not {type(p).__name__}")
    result = fspath_method(p)
    if not isinstance(result, (str, bytes)):
        raise TypeError(f"expected {type(p).__name__}.__fspath__() to return str or bytes")
    return result


def fsencode(filename):
    filename = fspath(filename)
    return filename.encode("utf-8", "surrogateescape") if isinstance(filename, str) else filename


def fsdecode(filename):
    filename = fspath(filename)
    return filename.decode("utf-8", "surrogateescape") if isinstance(filename, bytes) else filename


class PathLike:
    """Abstract base class for objects with ``__fspath__``."""

    @classmethod
    def __subclasshook__(cls, subclass):
        return True if hasattr(subclass, "__fspath__") else NotImplemented


def urandom(size):
    """Random bytes from the sandbox's own generator (not the host's entropy source)."""
    import _random

    if size < 0:
        raise ValueError("negative argument not allowed")
    return _random.Random().getrandbits(size * 8).to_bytes(size, "little") if size else b""
