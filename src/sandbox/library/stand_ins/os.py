"""The sandbox's stand-in for ``os``, written for dspy-rust-interpreter.

Files are the session's own filesystem (an in-memory tree with the host's mounts in it, see ``_sandbox_files``);
nothing else reaches the host: no environment (``environ`` is empty), no processes, no network. Operations
that would touch the host raise ``PermissionError``. ``getpid()`` answers 1: the session is a process of its
own, and which one on the host is not its business (asyncio asks, to notice a fork).
"""

import abc
import sys

import posixpath as path
from _sandbox_files import fspath, strerror
from _sandbox_files_io import fdopen
from _sandbox_files_os import (
    O_ACCMODE, O_APPEND, O_CLOEXEC, O_CREAT, O_DIRECTORY, O_DSYNC, O_EXCL, O_NOCTTY, O_NOFOLLOW, O_NONBLOCK,
    O_RDONLY, O_RDWR, O_SYNC, O_TRUNC, O_WRONLY, DirEntry, access, chdir, chmod, close, closerange,
    device_encoding, dup, fchmod, fdatasync, fstat, fsync, ftruncate, fwalk, get_blocksize, get_inheritable,
    getcwd, getcwdb, isatty, link, listdir, lseek, lstat, makedirs, mkdir, open, read, readinto, readlink, remove,
    removedirs, rename, renames, replace, rmdir, scandir, set_inheritable, stat, stat_result, symlink,
    truncate, unlink, utime, walk, write,
)

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
# No function takes dir_fd or an open directory; links do not exist, so following them is moot.
supports_dir_fd = set()
supports_fd = {stat, truncate}
supports_effective_ids = set()
supports_follow_symlinks = {stat, access, chmod, utime}
# os.walk's marker (3.12+) for walking symlinks as files: there are none.
_walk_symlinks_as_files = object()

error = OSError
environ = {}
sys.modules["os.path"] = path


def _refuse(operation):
    def refused(*args, **kwargs):
        raise PermissionError(f"os.{operation}() is not available in the sandbox: it has no host environment, "
                              "processes or network; use the tools you were given")

    refused.__name__ = operation
    return refused


for _operation in ("system", "popen", "kill", "killpg", "startfile", "execv", "execve", "execl", "execvp",
                   "spawnv", "spawnl", "posix_spawn", "putenv", "unsetenv", "getlogin",
                   "cpu_count", "chown", "lchown", "chroot", "mkfifo", "mknod", "pipe", "setsid", "nice"):
    globals()[_operation] = _refuse(_operation)
del _operation


def umask(mask):
    return 0o022


class terminal_size(tuple):
    """What ``shutil.get_terminal_size`` returns (there is no terminal: it falls back to 80x24)."""

    def __new__(cls, size):
        columns, lines = size
        return super().__new__(cls, (columns, lines))

    columns = property(lambda self: self[0])
    lines = property(lambda self: self[1])

    def __repr__(self):
        return f"os.terminal_size(columns={self[0]}, lines={self[1]})"


def get_terminal_size(fd=1):
    raise OSError(25, "Inappropriate ioctl for device")


def getuid():
    return 0


geteuid = getgid = getegid = getuid


def getpid():
    return 1


class uname_result(tuple):
    """What ``uname()`` answers (``posix.uname_result`` in CPython): the kind of system and machine code runs
    on, which ``platform.system()`` and ``platform.machine()`` read; the host's name and kernel are not the
    session's business."""

    _fields = ("sysname", "nodename", "release", "version", "machine")
    n_fields = n_sequence_fields = 5
    n_unnamed_fields = 0

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != 5:
            raise TypeError(f"os.uname_result() takes a 5-sequence ({len(values)}-sequence given)")
        return super().__new__(cls, values)

    sysname = property(lambda self: self[0])
    nodename = property(lambda self: self[1])
    release = property(lambda self: self[2])
    version = property(lambda self: self[3])
    machine = property(lambda self: self[4])

    def __repr__(self):
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"posix.uname_result({fields})"

    def __reduce__(self):
        return (uname_result, (tuple(self),))


def uname():
    machine = sys.implementation._multiarch.split("-")[0]
    return uname_result(("Linux", "sandbox", "", "", machine))


def getenv(key, default=None):
    return default


def fsencode(filename):
    filename = fspath(filename)
    return filename.encode("utf-8", "surrogateescape") if isinstance(filename, str) else filename


def fsdecode(filename):
    filename = fspath(filename)
    return filename.decode("utf-8", "surrogateescape") if isinstance(filename, bytes) else filename


class PathLike(abc.ABC):
    """Abstract base class for objects with ``__fspath__``."""

    @abc.abstractmethod
    def __fspath__(self):
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass):
        return True if hasattr(subclass, "__fspath__") else NotImplemented

    __class_getitem__ = classmethod(lambda cls, item: cls)


def urandom(size):
    """Random bytes from the sandbox's own generator (not the host's entropy source)."""
    import _random

    if size < 0:
        raise ValueError("negative argument not allowed")
    return _random.Random().getrandbits(size * 8).to_bytes(size, "little") if size else b""

# stand-in also for: posix (importlib's path machinery imports it)
