"""The ``os`` functions over the sandbox's filesystem (module ``_sandbox_files_os``), written for
dspy-rust-interpreter: file descriptors, stat, directories, renames, the working directory, ``walk``. The ``os``
stand-in exports them; their arguments, results and errors are those of CPython's ``os`` on Linux.
"""

import errno as _errno

import _sandbox_files as _fs
from _sandbox_files import error as _error, text_path as _text_path

O_RDONLY, O_WRONLY, O_RDWR = 0, 1, 2
O_ACCMODE = 3
O_CREAT, O_EXCL, O_NOCTTY, O_TRUNC, O_APPEND, O_NONBLOCK = 0o100, 0o200, 0o400, 0o1000, 0o2000, 0o4000
O_DSYNC, O_SYNC, O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC = 0o10000, 0o4010000, 0o200000, 0o400000, 0o2000000
SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2


def _path_function(function):
    """``function`` takes a path first: an OSError it raises names that path as the caller gave it (bytes stay
    bytes)."""

    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except OSError as exc:
            path = args[0] if args else None
            if isinstance(path, bytes) and isinstance(exc.filename, str):
                raise OSError(exc.errno, exc.strerror, path, None,
                              *(() if exc.filename2 is None else (exc.filename2,))) from None
            raise

    call.__name__ = call.__qualname__ = function.__name__
    call.__doc__ = function.__doc__
    return call


class stat_result(tuple):
    """The result of ``stat``: a 10-tuple with the ``st_*`` attributes, as ``os.stat_result``."""

    n_sequence_fields = 10
    n_fields = 19
    _names = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size")

    def __new__(cls, sequence, _times_ns=None):
        sequence = tuple(sequence)
        self = super().__new__(cls, sequence[:10])
        self._ns = _times_ns or tuple(int(t * 1_000_000_000) for t in sequence[7:10])
        return self

    def __init__(self, *args):
        pass

    st_mode = property(lambda self: self[0])
    st_ino = property(lambda self: self[1])
    st_dev = property(lambda self: self[2])
    st_nlink = property(lambda self: self[3])
    st_uid = property(lambda self: self[4])
    st_gid = property(lambda self: self[5])
    st_size = property(lambda self: self[6])
    st_atime = property(lambda self: self._ns[0] / 1e9)
    st_mtime = property(lambda self: self._ns[1] / 1e9)
    st_ctime = property(lambda self: self._ns[2] / 1e9)
    st_atime_ns = property(lambda self: self._ns[0])
    st_mtime_ns = property(lambda self: self._ns[1])
    st_ctime_ns = property(lambda self: self._ns[2])
    st_blksize = property(lambda self: 4096)
    st_blocks = property(lambda self: (self[6] + 511) // 512)
    st_rdev = property(lambda self: 0)

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in self._names)
        return f"os.stat_result({fields}, st_atime={self[7]}, st_mtime={self[8]}, st_ctime={self[9]})"

    def __reduce__(self):
        return (stat_result, (tuple(self), self._ns))


def _stat_of(raw):
    mode, ino, size, atime, mtime, ctime, nlink = raw
    return stat_result((mode, ino, 1, nlink, 0, 0, size, atime // 1_000_000_000, mtime // 1_000_000_000,
                        ctime // 1_000_000_000), (atime, mtime, ctime))


# --- file descriptors ---------------------------------------------------------------------------------------


class Handle:
    """An open file description: its backing (a memory file or a host file), position and access."""

    __slots__ = ("backing", "pos", "readable", "writable", "append", "path", "is_dir")

    def __init__(self, backing, readable, writable, append, path, is_dir=False):
        self.backing, self.pos = backing, 0
        self.readable, self.writable, self.append = readable, writable, append
        self.path, self.is_dir = path, is_dir
        if isinstance(backing, _fs.File):
            backing.opened += 1

    def close(self):
        if isinstance(self.backing, _fs.File):
            self.backing.opened -= 1
            self.backing.release()


_fds = {}


def handle(fd):
    if isinstance(fd, bool) or not isinstance(fd, int):
        raise TypeError(f"'{type(fd).__name__}' object cannot be interpreted as an integer")
    try:
        return _fds[fd]
    except KeyError:
        raise _error(_errno.EBADF) from None


def _new_fd(h):
    if len(_fds) >= _fs.MAX_OPEN_FILES:
        h.close()
        raise _error(_errno.EMFILE)
    fd = 3
    while fd in _fds:
        fd += 1
    _fds[fd] = h
    return fd


@_path_function
def open(path, flags, mode=0o777, *, dir_fd=None):
    _no_dir_fd(dir_fd)
    path = _text_path(path, "open")
    if flags & O_CREAT and path.endswith("/"):
        raise _error(_errno.EISDIR, path)
    access = flags & O_ACCMODE
    readable, writable = access in (O_RDONLY, O_RDWR), access in (O_WRONLY, O_RDWR)
    found = _fs.lookup(path, missing_ok=bool(flags & O_CREAT))
    exists = found.node is not None or found.kind is not None
    if exists:
        if flags & O_CREAT and flags & O_EXCL:
            raise _error(_errno.EEXIST, path)
        if found.is_dir():
            if writable or flags & O_TRUNC:
                raise _error(_errno.EISDIR, path)
            return _new_fd(Handle(None, True, False, False, path, is_dir=True))
        if flags & O_DIRECTORY:
            raise _error(_errno.ENOTDIR, path)
        if writable or flags & O_TRUNC:
            _fs.read_only(found.mount, path)
        backing = _fs.backing_of(found, path, writable or bool(flags & O_TRUNC))
        if flags & O_TRUNC and writable:
            backing.truncate(0)
            _fs.note_written(_fs.split(path)[0])
    else:
        if path.endswith("/"):
            raise _error(_errno.EISDIR, path)
        backing = _fs.make_file(path, found, mode)
    h = Handle(backing, readable, writable, bool(flags & O_APPEND), path)
    if writable:
        _fs.note_written(_fs.split(path)[0])
    return _new_fd(h)


def close(fd):
    handle(fd).close()
    del _fds[fd]


def closerange(low, high):
    for fd in [fd for fd in _fds if low <= fd < high]:
        close(fd)


def read(fd, n):
    h = handle(fd)
    if n < 0:
        raise ValueError("negative buffersize in read")
    if h.is_dir:
        raise _error(_errno.EISDIR)
    if not h.readable:
        raise _error(_errno.EBADF)
    data = h.backing.read_at(h.pos, n)
    h.pos += len(data)
    return data


def readinto(fd, buffer):
    view = memoryview(buffer).cast("B")
    data = read(fd, len(view))
    view[: len(data)] = data
    return len(data)


def write(fd, data):
    h = handle(fd)
    if not h.writable:
        raise _error(_errno.EBADF)
    data = bytes(memoryview(data))
    if h.append:
        h.pos = h.backing.size()
    written = h.backing.write_at(h.pos, data)
    h.pos += written
    return written


def lseek(fd, position, how):
    h = handle(fd)
    if how == SEEK_SET:
        new = position
    elif how == SEEK_CUR:
        new = h.pos + position
    elif how == SEEK_END:
        new = (h.backing.size() if h.backing is not None else 0) + position
    else:
        raise _error(_errno.EINVAL)
    if new < 0:
        raise _error(_errno.EINVAL)
    h.pos = new
    return new


def ftruncate(fd, length):
    h = handle(fd)
    if not h.writable:
        raise _error(_errno.EINVAL)
    if length < 0:
        raise _error(_errno.EINVAL)
    h.backing.truncate(length)


def fstat(fd):
    h = handle(fd)
    if h.is_dir:
        return stat(h.path)
    return _stat_of(h.backing.stat())


def fsync(fd):
    if not isinstance(fd, int):
        fd = fd.fileno()
    handle(fd)


fdatasync = fsync


def isatty(fd):
    handle(fd)
    return False


def device_encoding(fd):
    return None


def get_blocksize(fd):
    handle(fd)
    return 4096


def get_inheritable(fd):
    handle(fd)
    return False


def set_inheritable(fd, inheritable):
    handle(fd)


def dup(fd):
    h = handle(fd)
    copy = Handle(h.backing, h.readable, h.writable, h.append, h.path, h.is_dir)
    copy.pos = h.pos
    return _new_fd(copy)


def _no_dir_fd(dir_fd):
    if dir_fd is not None:
        raise NotImplementedError("dir_fd unavailable on this platform")


# --- paths ----------------------------------------------------------------------------------------------------


@_path_function
def stat(path, *, dir_fd=None, follow_symlinks=True):
    _no_dir_fd(dir_fd)
    if isinstance(path, int) and not isinstance(path, bool):
        return fstat(path)
    path = _text_path(path, "stat")
    return _stat_of(_fs.lookup(path).stat())


@_path_function
def lstat(path, *, dir_fd=None):
    return stat(path, dir_fd=dir_fd)


def access(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True):
    _no_dir_fd(dir_fd)
    try:
        found = _fs.lookup(_text_path(path, "access"))
    except OSError:
        return False
    if mode & 2 and found.mount is not None and found.mount.mode == "ro":
        return False
    # As for root: reading and writing are allowed, running needs an execute bit (folders may be entered).
    if mode & 1 and not found.is_dir() and not found.stat()[0] & 0o111:
        return False
    return True


@_path_function
def listdir(path="."):
    if path is None:
        path = "."
    as_bytes = isinstance(_fs.fspath(path), bytes)
    names = list(_fs.list_names(_text_path(path, "listdir")))
    return [name.encode("utf-8", "surrogateescape") for name in names] if as_bytes else names


class DirEntry:
    """An entry of ``scandir``, as ``os.DirEntry``."""

    __slots__ = ("name", "path", "_is_dir", "_stat")

    def __init__(self, name, path, is_dir):
        self.name, self.path, self._is_dir, self._stat = name, path, is_dir, None

    def is_dir(self, *, follow_symlinks=True):
        return self._is_dir

    def is_file(self, *, follow_symlinks=True):
        return not self._is_dir

    def is_symlink(self):
        return False

    def is_junction(self):
        return False

    def stat(self, *, follow_symlinks=True):
        if self._stat is None:
            self._stat = stat(self.path)
        return self._stat

    def inode(self):
        return self.stat().st_ino

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return f"<DirEntry {self.name!r}>"

    def __class_getitem__(cls, item):
        import types

        return types.GenericAlias(cls, item)


class _ScandirIterator:
    def __init__(self, entries):
        self._entries = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._entries)

    def close(self):
        self._entries = iter(())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@_path_function
def scandir(path="."):
    if path is None:
        path = "."
    raw = _fs.fspath(path)
    text = _text_path(raw, "scandir")
    names = _fs.list_names(text)
    sep = "/" if not text.endswith("/") else ""
    entries = []
    for name, is_dir in names.items():
        full = text + sep + name
        if isinstance(raw, bytes):
            entries.append(DirEntry(name.encode("utf-8", "surrogateescape"), full.encode("utf-8", "surrogateescape"), is_dir))
        else:
            entries.append(DirEntry(name, full, is_dir))
    return _ScandirIterator(entries)


@_path_function
def mkdir(path, mode=0o777, *, dir_fd=None):
    _no_dir_fd(dir_fd)
    path = _text_path(path, "mkdir")
    found = _fs.lookup(path, missing_ok=True)
    if found.node is not None or found.kind is not None:
        raise _error(_errno.EEXIST, path)
    parent = _fs.parent_for_new(path, found)
    if parent is None:
        _fs.host(_fs.OP_MKDIR, found.mount, found.rel, path)
    else:
        parent.entries[found.name] = _fs.Dir(mode & 0o777 & ~0o022, opaque=True)
        parent.touch()


def makedirs(name, mode=0o777, exist_ok=False):
    import posixpath

    head, tail = posixpath.split(name)
    if not tail:
        head, tail = posixpath.split(head)
    if head and tail and not posixpath.exists(head):
        try:
            makedirs(head, exist_ok=exist_ok)
        except FileExistsError:
            pass
        if tail == (b"." if isinstance(tail, bytes) else "."):
            return
    try:
        mkdir(name, mode)
    except OSError:
        if not exist_ok or not posixpath.isdir(name):
            raise


@_path_function
def rmdir(path, *, dir_fd=None):
    _no_dir_fd(dir_fd)
    path = _text_path(path, "rmdir")
    if path == "." or path.endswith("/."):
        raise _error(_errno.EINVAL, path)
    _fs.remove_entry(_fs.lookup(path), path, want_dir=True)


def removedirs(name):
    import posixpath

    rmdir(name)
    head, tail = posixpath.split(name)
    if not tail:
        head, tail = posixpath.split(head)
    while head and tail:
        try:
            rmdir(head)
        except OSError:
            break
        head, tail = posixpath.split(head)


@_path_function
def unlink(path, *, dir_fd=None):
    _no_dir_fd(dir_fd)
    path = _text_path(path, "unlink")
    _fs.remove_entry(_fs.lookup(path), path, want_dir=False)


@_path_function
def remove(path, *, dir_fd=None):
    _no_dir_fd(dir_fd)
    path = _text_path(path, "remove")
    _fs.remove_entry(_fs.lookup(path), path, want_dir=False)


def rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
    _no_dir_fd(src_dir_fd)
    _no_dir_fd(dst_dir_fd)
    raw_src, raw_dst = src, dst
    src, dst = _text_path(src, "rename"), _text_path(dst, "rename")
    try:
        _rename(src, dst)
    except OSError as exc:
        # CPython names both paths, as given.
        raise OSError(exc.errno, exc.strerror, _fs.fspath(raw_src), None, _fs.fspath(raw_dst)) from None


def replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
    rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)


def _rename(src, dst):
    source = _fs.lookup(src)
    target = _fs.lookup(dst, missing_ok=True)
    fail = lambda code: _error(code, src, dst)  # noqa: E731
    if source.mount is not target.mount:
        raise fail(_errno.EXDEV)
    mount = source.mount
    if mount is not None and mount.mode == "ro":
        raise fail(_errno.EROFS)
    src_parts, dst_parts = _fs.split(src)[0], _fs.split(dst)[0]
    if src_parts == dst_parts:
        return
    if dst_parts[:len(src_parts)] == src_parts:
        raise fail(_errno.EINVAL)
    if (mount is not None and (not source.rel or not target.rel)) or (mount is None and (
            not src_parts or _fs.mount_points_below(src_parts) or not dst_parts)):
        raise fail(_errno.EBUSY)
    target_exists = target.node is not None or target.kind is not None
    if target_exists:
        if source.is_dir() and not target.is_dir():
            raise fail(_errno.ENOTDIR)
        if not source.is_dir() and target.is_dir():
            raise fail(_errno.EISDIR)
        if target.is_dir() and _fs.list_names(dst):
            raise fail(_errno.ENOTEMPTY)
    if mount is not None and mount.upper is None:
        _fs.host(_fs.OP_RENAME, mount, source.rel, src, rel2=target.rel, filename2=dst)
    elif mount is not None and source.node is None and source.is_dir():
        # A host directory under an overlay would have to be copied up whole: shutil.move copies it instead.
        raise fail(_errno.EXDEV)
    else:
        node = source.node if source.node is not None else _fs.copy_up(source, src)
        parent = _fs.parent_for_new(dst, target) if not target_exists or target.node is None else target.parent
        if target_exists:
            _fs.remove_entry(target, dst, want_dir=target.is_dir())
            parent = _fs.parent_for_new(dst, _fs.lookup(dst, missing_ok=True))
        source = _fs.lookup(src)
        source.parent.entries.pop(source.name)
        source.parent.touch()
        if mount is not None and _fs._on_host(mount, source.rel):
            _fs.parent_for_new(src, _fs.Found(mount=mount, rel=source.rel, name=source.name)).entries[source.name] = _fs.WHITEOUT
        parent.entries[target.name] = node
        parent.touch()
    _fs.note_removed(src_parts)
    if not source.is_dir():
        _fs.note_written(dst_parts)




def renames(old, new):
    import posixpath

    head, tail = posixpath.split(new)
    if head and tail and not posixpath.exists(head):
        makedirs(head)
    rename(old, new)
    head, tail = posixpath.split(old)
    if head and tail:
        try:
            removedirs(head)
        except OSError:
            pass


@_path_function
def truncate(path, length):
    if isinstance(path, int) and not isinstance(path, bool):
        return ftruncate(path, length)
    path = _text_path(path, "truncate")
    fd = open(path, O_WRONLY)
    try:
        ftruncate(fd, length)
    finally:
        close(fd)


@_path_function
def utime(path, times=None, *, ns=None, dir_fd=None, follow_symlinks=True):
    _no_dir_fd(dir_fd)
    if times is not None and ns is not None:
        raise ValueError("utime: you may specify either 'times' or 'ns' but not both")
    if times is not None and (not isinstance(times, tuple) or len(times) != 2):
        raise TypeError("utime: 'times' must be either a tuple of two ints or None")
    if ns is not None and (not isinstance(ns, tuple) or len(ns) != 2):
        raise TypeError("utime: 'ns' must be a tuple of two ints")
    path = _text_path(path, "utime")
    found = _fs.lookup(path)
    if ns is not None:
        atime, mtime = ns
    elif times is not None:
        atime, mtime = (int(t * 1_000_000_000) for t in times)
    else:
        atime = mtime = _fs._now()
    if found.node is None:
        _fs.read_only(found.mount, path)
        if found.mount.upper is None:
            _fs.host(_fs.OP_UTIME, found.mount, found.rel, path, offset=atime, size=mtime)
            return
        node = _fs.copy_up(found, path)
    else:
        node = found.node
    node.atime, node.mtime = atime, mtime


@_path_function
def chmod(path, mode, *, dir_fd=None, follow_symlinks=True):
    _no_dir_fd(dir_fd)
    if isinstance(path, int) and not isinstance(path, bool):
        path = handle(path).path
    path = _text_path(path, "chmod")
    found = _fs.lookup(path)
    if found.node is None:
        _fs.read_only(found.mount, path)
        if found.mount.upper is None:
            return  # a mount's host files keep their mode
        node = _fs.copy_up(found, path)
    else:
        node = found.node
    node.mode = mode & 0o7777


def fchmod(fd, mode):
    chmod(handle(fd).path, mode)


def _refuse_links(*args, **kwargs):
    raise OSError(_errno.EPERM, "Operation not permitted: the sandbox's filesystem has no links")


symlink = link = _refuse_links


@_path_function
def readlink(path, *, dir_fd=None):
    path = _text_path(path, "readlink")
    _fs.lookup(path)
    raise _error(_errno.EINVAL, path)


def getcwd():
    return "/" + "/".join(_fs._Cwd.parts)


def getcwdb():
    return getcwd().encode("utf-8", "surrogateescape")


@_path_function
def chdir(path):
    path = _text_path(path, "chdir")
    found = _fs.lookup(path)
    if not found.is_dir():
        raise _error(_errno.ENOTDIR, path)
    _fs._Cwd.parts = _fs.split(path)[0]


def walk(top, topdown=True, onerror=None, followlinks=False):
    """Directory tree generator, as ``os.walk`` (there are no links to follow)."""
    top = _fs.fspath(top)
    stack = [top]
    while stack:
        top = stack.pop()
        if isinstance(top, tuple):
            yield top
            continue
        try:
            entries = list(scandir(top))
        except OSError as exc:
            if onerror is not None:
                onerror(exc)
            continue
        dirs = [e.name for e in entries if e.is_dir()]
        files = [e.name for e in entries if not e.is_dir()]
        if topdown:
            yield top, dirs, files
        else:
            stack.append((top, dirs, files))
        for name in reversed(dirs):
            stack.append(_join(top, name))


def _join(top, name):
    sep = "/" if isinstance(top, str) else b"/"
    return top + name if top.endswith(sep) else top + sep + name


def fwalk(*args, **kwargs):
    raise NotImplementedError("os.fwalk is not available in the sandbox; use os.walk")
