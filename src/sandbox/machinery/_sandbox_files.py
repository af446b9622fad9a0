"""The sandbox's filesystem, written for dspy-rust-interpreter (module ``_sandbox_files``).

Each session has its own tree in memory (its files are in the session's heap: they count against its memory,
and checkpoints, rollbacks and forks carry them), with the host's mounts in it. A mount's files stay on the host,
which serves each operation over the session's channel (``_sandbox_host_files``) and checks it again there:
nothing here is trusted by the host. An overlay mount keeps its changes in a memory tree of its own above the
host folder (a deleted host entry is hidden by a whiteout).

The ``os`` stand-in and ``open()`` (``_sandbox_files_io``) are built on the functions at the end of this module;
their behaviour and errors are CPython's on Linux. There are no links: ``symlink``/``link`` are refused, and a
mount shows only the regular files and directories of its folder.
"""

import errno as _errno
import time as _time

# glibc's wording, which CPython's OSError messages carry.
_STRERROR = {
    _errno.EPERM: "Operation not permitted",
    _errno.ENOENT: "No such file or directory",
    _errno.EBADF: "Bad file descriptor",
    _errno.EACCES: "Permission denied",
    _errno.EBUSY: "Device or resource busy",
    _errno.EEXIST: "File exists",
    _errno.EXDEV: "Invalid cross-device link",
    _errno.ENOTDIR: "Not a directory",
    _errno.EISDIR: "Is a directory",
    _errno.EINVAL: "Invalid argument",
    _errno.EMFILE: "Too many open files",
    _errno.EFBIG: "File too large",
    _errno.ENOSPC: "No space left on device",
    _errno.ESPIPE: "Illegal seek",
    _errno.EROFS: "Read-only file system",
    _errno.ENAMETOOLONG: "File name too long",
    _errno.ENOTEMPTY: "Directory not empty",
    _errno.ELOOP: "Too many levels of symbolic links",
    _errno.EIO: "Input/output error",
    _errno.ENOMEM: "Cannot allocate memory",
}

S_IFDIR, S_IFREG, S_IFCHR = 0o040000, 0o100000, 0o020000
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
MAX_OPEN_FILES = 1024
# Bytes fetched from a mount at once when a file is read in small pieces.
READ_AHEAD = 1 << 20
# Bytes one host request carries at most (the host refuses more).
MAX_TRANSFER = 16 << 20


def strerror(code):
    return _STRERROR.get(code) or f"Unknown error {code}"


def error(code, filename=None, filename2=None, detail=None):
    """The OSError CPython raises for errno ``code`` (its subclass follows from the errno)."""
    message = strerror(code) if detail is None else f"{strerror(code)} ({detail})"
    if filename2 is not None:
        return OSError(code, message, filename, None, filename2)
    if filename is not None:
        return OSError(code, message, filename)
    return OSError(code, message)


class _Limits:
    """The session's quotas for files in memory (set by ``configure``)."""

    max_bytes = 256 << 20
    max_files = 10_000


_usage = [0, 0]  # bytes and files held in memory


def _now():
    return _time.time_ns()


_next_ino = [1]


def _new_ino():
    _next_ino[0] += 1
    return _next_ino[0]


# --- nodes of the memory tree ------------------------------------------------------------------------------


class File:
    """A file in memory: its bytes, times and mode. Shared by every open handle of it, as on POSIX."""

    __slots__ = ("data", "mode", "atime", "mtime", "ctime", "ino", "linked", "opened")

    def __init__(self, mode=0o644):
        self.data = bytearray()
        self.mode = mode & 0o7777
        self.atime = self.mtime = self.ctime = _now()
        self.ino = _new_ino()
        self.linked = True
        self.opened = 0
        if _usage[1] >= _Limits.max_files:
            raise error(_errno.ENOSPC, detail=f"the sandbox holds at most {_Limits.max_files} files in memory")
        _usage[1] += 1

    def stat(self):
        return (S_IFREG | self.mode, self.ino, len(self.data), self.atime, self.mtime, self.ctime, 1)

    def size(self):
        return len(self.data)

    def read_at(self, pos, n):
        return bytes(self.data[pos:pos + n])

    def _grow(self, new_size):
        grow = new_size - len(self.data)
        if grow > 0 and _usage[0] + grow > _Limits.max_bytes:
            raise error(_errno.ENOSPC, detail=f"the sandbox's files hold at most {_Limits.max_bytes} bytes in memory")
        _usage[0] += grow

    def write_at(self, pos, data):
        end = pos + len(data)
        self._grow(max(end, len(self.data)))
        if pos > len(self.data):
            self.data.extend(bytes(pos - len(self.data)))
        self.data[pos:end] = data
        self.mtime = self.ctime = _now()
        return len(data)

    def truncate(self, size):
        self._grow(size)
        if size < len(self.data):
            del self.data[size:]
        else:
            self.data.extend(bytes(size - len(self.data)))
        self.mtime = self.ctime = _now()

    def release(self):
        """No name and no open handle refers to it any more: its bytes no longer count."""
        if not self.linked and not self.opened:
            _usage[0] -= len(self.data)
            _usage[1] -= 1
            self.data = bytearray()


class Dir:
    """A directory in memory. In an overlay, ``opaque`` hides the host directory beneath it, and an entry
    that is ``WHITEOUT`` hides the host entry of that name."""

    __slots__ = ("entries", "mode", "atime", "mtime", "ctime", "ino", "opaque")

    def __init__(self, mode=0o755, opaque=True):
        self.entries = {}
        self.mode = mode & 0o7777
        self.atime = self.mtime = self.ctime = _now()
        self.ino = _new_ino()
        self.opaque = opaque

    def stat(self):
        return (S_IFDIR | self.mode, self.ino, 4096, self.atime, self.mtime, self.ctime, 2)

    def names(self):
        return [name for name, node in self.entries.items() if node is not WHITEOUT]

    def touch(self):
        self.mtime = self.ctime = _now()


class NullDevice:
    """``/dev/null`` (``os.devnull``): reads find the end at once, writes are accepted and dropped. Code opens
    it to silence output (logging handlers, ``subprocess``-style redirections, pytest's own set-up)."""

    __slots__ = ("ino",)

    def __init__(self):
        self.ino = _new_ino()

    def stat(self):
        return (S_IFCHR | 0o666, self.ino, 0, 0, 0, 0, 1)

    def size(self):
        return 0

    def read_at(self, pos, n):
        return b""

    def write_at(self, pos, data):
        return len(data)

    def truncate(self, size):
        pass


WHITEOUT = object()


# --- where a path leads -------------------------------------------------------------------------------------


class _Cwd:
    parts = ()


def fspath(path):
    if isinstance(path, (str, bytes)):
        return path
    method = getattr(type(path), "__fspath__", None)
    if method is None:
        raise TypeError(f"expected str, bytes or os.PathLike object, not {type(path).__name__}")
    result = method(path)
    if not isinstance(result, (str, bytes)):
        raise TypeError(f"expected {type(path).__name__}.__fspath__() to return str or bytes, "
                        f"not {type(result).__name__}")
    return result


def text_path(path, what="path"):
    """``path`` as str (bytes are decoded as the os module would); TypeError/ValueError as CPython's."""
    path = fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8", "surrogateescape")
    if "\0" in path:
        raise ValueError(f"{what}: embedded null character in path" if what else "embedded null byte")
    return path


def split(path):
    """The absolute components of ``path`` (resolved against the working directory, ``..`` within the
    sandbox's own tree), and whether it ended with a slash."""
    if not path:
        raise error(_errno.ENOENT, path)
    encoded = len(path.encode("utf-8", "surrogateescape"))
    if encoded >= MAX_PATH_BYTES:
        raise error(_errno.ENAMETOOLONG, path)
    parts = [] if path.startswith("/") else list(_Cwd.parts)
    for name in path.split("/"):
        if name in ("", "."):
            continue
        if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise error(_errno.ENAMETOOLONG, path)
        if name == "..":
            # As the kernel does: what comes before '..' must be a folder that exists.
            if not _lookup_parts(tuple(parts), path, False).is_dir():
                raise error(_errno.ENOTDIR, path)
            if parts:
                parts.pop()
        else:
            parts.append(name)
    trailing = path.endswith("/") or path.endswith("/.") or path.endswith("/..") or path in (".", "..")
    return tuple(parts), trailing


class Mount:
    """A host folder (or file) in the tree, served by the host: mount number ``index`` there."""

    def __init__(self, index, parts, mode, is_file):
        self.index = index
        self.parts = parts
        self.mode = mode
        self.is_file = is_file
        self.upper = Dir(opaque=False) if mode == "overlay" else None

    def path(self):
        return "/" + "/".join(self.parts)


_mounts = []  # longest first
ROOT = Dir()


def mount_of(parts):
    for mount in _mounts:
        n = len(mount.parts)
        if parts[:n] == mount.parts:
            return mount, parts[n:]
    return None, parts


def mount_points_below(parts):
    """Names of mount points directly in the memory directory ``parts``."""
    n = len(parts)
    return {m.parts[n] for m in _mounts if len(m.parts) > n and m.parts[:n] == parts}


# --- the host's side of a mount ----------------------------------------------------------------------------

OP_STAT, OP_LIST, OP_READ, OP_WRITE, OP_TRUNCATE, OP_MKDIR, OP_RMDIR, OP_UNLINK, OP_RENAME, OP_UTIME = range(10)
KIND_FILE, KIND_DIR = 0, 1


class _Host:
    """The session's doors to the host, given by ``configure``."""

    request = None
    run_id = staticmethod(lambda: 0)


def host(op, mount, rel, filename, offset=0, size=0, data=None, rel2=None, filename2=None):
    """One operation on the host's side of ``mount``; its OSError names the sandbox path(s)."""
    try:
        return _Host.request(op, mount.index, rel, offset, size, data, rel2)
    except OSError as exc:
        raise error(exc.errno, filename, filename2, detail=exc.strerror or None) from None


class HostFile:
    """A file on the host, read and written in place through the host (a handle keeps only a read-ahead)."""

    __slots__ = ("mount", "rel", "filename", "cache_at", "cache")

    def __init__(self, mount, rel, filename):
        self.mount, self.rel, self.filename = mount, rel, filename
        self.cache_at, self.cache = 0, b""

    def stat(self):
        kind, size, mtime = host(OP_STAT, self.mount, self.rel, self.filename)
        return _host_stat(self.mount, self.rel, kind, size, mtime)

    def size(self):
        return self.stat()[2]

    def read_at(self, pos, n):
        cached = pos - self.cache_at
        if 0 <= cached and pos + n <= self.cache_at + len(self.cache):
            return self.cache[cached:cached + n]
        chunks = []
        want = max(n, READ_AHEAD)
        at = pos
        while want > 0:
            chunk = host(OP_READ, self.mount, self.rel, self.filename, offset=at, size=min(want, MAX_TRANSFER))
            chunks.append(chunk)
            at += len(chunk)
            want -= len(chunk)
            if len(chunk) < MAX_TRANSFER:
                break
        data = b"".join(chunks)
        self.cache_at, self.cache = pos, data
        return data[:n]

    def write_at(self, pos, data):
        self.cache = b""
        view = memoryview(data)
        for start in range(0, len(view), MAX_TRANSFER):
            host(OP_WRITE, self.mount, self.rel, self.filename, offset=pos + start, data=bytes(view[start:start + MAX_TRANSFER]))
        return len(data)

    def truncate(self, size):
        self.cache = b""
        host(OP_TRUNCATE, self.mount, self.rel, self.filename, size=size)

    def release(self):
        pass


def _host_stat(mount, rel, kind, size, mtime):
    mode = (S_IFDIR | 0o755) if kind == KIND_DIR else (S_IFREG | 0o644)
    if mount.mode == "ro":
        mode &= ~0o222
    ino = hash((mount.index, rel)) & 0x7FFFFFFF
    return (mode, ino, size, mtime, mtime, mtime, 2 if kind == KIND_DIR else 1)


# --- lookups -------------------------------------------------------------------------------------------------


class Found:
    """What a path names: a memory node (``node``, in the directory ``parent`` under ``name``), or an entry of
    a mount's host folder (``mount``/``rel`` with its ``kind``)."""

    __slots__ = ("node", "parent", "name", "mount", "rel", "kind", "host_stat")

    def __init__(self, node=None, parent=None, name=None, mount=None, rel=None, kind=None, host_stat=None):
        self.node, self.parent, self.name = node, parent, name
        self.mount, self.rel, self.kind, self.host_stat = mount, rel, kind, host_stat

    def is_dir(self):
        return isinstance(self.node, Dir) if self.node is not None else self.kind == KIND_DIR

    def stat(self):
        if self.node is not None:
            return self.node.stat()
        return self.host_stat


def _walk_memory(root, names, filename, base=()):
    """Follow ``names`` down memory directories from ``root``: (node or None when missing, its parent)."""
    node, parent = root, None
    for i, name in enumerate(names):
        if not isinstance(node, Dir):
            raise error(_errno.ENOTDIR, filename)
        parent = node
        node = node.entries.get(name)
        if node is None or node is WHITEOUT:
            return None, parent, i
    return node, parent, len(names)


def lookup(path, missing_ok=False):
    """What ``path`` names (a ``Found``), or None when it does not exist and ``missing_ok`` (its parent
    directory must exist); FileNotFoundError/NotADirectoryError otherwise."""
    parts, trailing = split(path)
    found = _lookup_parts(parts, path, missing_ok)
    if found is not None and trailing and not found.is_dir() and (found.node is not None or found.kind is not None):
        raise error(_errno.ENOTDIR, path)
    return found


def _lookup_parts(parts, path, missing_ok):
    mount, rel = mount_of(parts)
    if mount is None:
        node, parent, depth = _walk_memory(ROOT, parts, path)
        if node is None:
            if depth < len(parts) - 1 or not missing_ok:
                raise error(_errno.ENOENT, path)
            return Found(parent=parent, name=parts[-1])
        return Found(node=node, parent=parent, name=parts[-1] if parts else None)
    if mount.upper is not None and mount.is_file:
        # A file mount's overlay holds the file's copy under the name "".
        node = mount.upper.entries.get("")
        if rel:
            raise error(_errno.ENOTDIR, path)
        if node is not None:
            return Found(node=node, parent=mount.upper, name="", mount=mount, rel=rel)
    elif mount.upper is not None:
        node, parent, depth = _walk_memory(mount.upper, rel, path)
        if node is not None:
            return Found(node=node, parent=parent, name=rel[-1] if rel else None, mount=mount, rel=rel)
        if parent is not None and (parent.entries.get(rel[depth]) is WHITEOUT or _opaque_above(mount.upper, rel[:depth])):
            if depth < len(rel) - 1 or not missing_ok:
                raise error(_errno.ENOENT, path)
            return Found(parent=None, name=rel[-1], mount=mount, rel=rel)
    try:
        kind, size, mtime = host(OP_STAT, mount, rel, path)
    except FileNotFoundError:
        if not missing_ok or not rel:
            raise
        return Found(name=rel[-1] if rel else None, mount=mount, rel=rel)
    return Found(mount=mount, rel=rel, kind=kind, host_stat=_host_stat(mount, rel, kind, size, mtime),
                 name=rel[-1] if rel else None)


def _opaque_above(upper, names):
    node = upper
    for name in names:
        node = node.entries.get(name)
        if not isinstance(node, Dir):
            return False
        if node.opaque:
            return True
    return False


def list_names(path):
    """The names in directory ``path`` (unsorted, as the OS gives them), with whether each is a directory."""
    found = lookup(path)
    if not found.is_dir():
        raise error(_errno.ENOTDIR, path)
    parts, _ = split(path)
    entries = {}
    if found.mount is None or found.mount.upper is not None:
        node = found.node
        if found.mount is None:
            for name in mount_points_below(parts):
                entries[name] = True
        if node is not None:
            for name, child in node.entries.items():
                if child is not WHITEOUT:
                    entries[name] = isinstance(child, Dir)
        hidden = {name for name, child in node.entries.items() if child is WHITEOUT} if node is not None else set()
        if found.mount is not None and (node is None or not node.opaque):
            for name, kind, _size, _mtime in host(OP_LIST, found.mount, found.rel, path):
                if name not in hidden and name not in entries:
                    entries[name] = kind == KIND_DIR
        return entries
    for name, kind, _size, _mtime in host(OP_LIST, found.mount, found.rel, path):
        entries[name] = kind == KIND_DIR
    return entries


# --- changes ------------------------------------------------------------------------------------------------

_written = {}  # sandbox path -> the run that last changed it


def run_id():
    return _Host.run_id()


def note_written(parts):
    _written["/" + "/".join(parts)] = run_id()


def note_removed(parts):
    _written.pop("/" + "/".join(parts), None)


def written():
    """The files the last run created or changed and that still exist, sorted."""
    current = run_id()
    return sorted(path for path, run in _written.items() if run == current and _exists_file(path))


def _exists_file(path):
    try:
        found = lookup(path)
    except OSError:
        return False
    return found is not None and not found.is_dir()


def read_only(mount, path):
    if mount is not None and mount.mode == "ro":
        raise error(_errno.EROFS, path)


def copy_up(found, path):
    """Make the overlay's memory tree hold ``found`` (a host entry of an overlay mount) and its parents:
    its memory node. A file's bytes are read from the host."""
    mount = found.mount
    node = mount.upper
    if mount.is_file:
        copy = File()
        size = found.host_stat[2]
        copy.write_at(0, HostFile(mount, (), path).read_at(0, size) if size else b"")
        node.entries[""] = copy
        return copy
    for i, name in enumerate(found.rel):
        child = node.entries.get(name)
        if child is None or child is WHITEOUT:
            last = i == len(found.rel) - 1
            if last and found.kind == KIND_FILE:
                child = File()
                data = HostFile(mount, found.rel, path).read_at(0, found.host_stat[2]) if found.host_stat[2] else b""
                child.write_at(0, data)
            else:
                child = Dir(opaque=False)
            node.entries[name] = child
        node = child
    return node


def parent_for_new(path, found):
    """The memory directory a new entry named ``found.name`` goes in (copied up in an overlay), or None when the
    entry goes to a mount's host folder. EROFS for a read-only mount."""
    read_only(found.mount, path)
    if found.mount is None:
        # (A mount point itself is never a memory entry: `lookup` finds it as its mount's root.)
        if found.parent is None:
            raise error(_errno.ENOENT, path)
        return found.parent
    if found.mount.upper is None:
        return None
    parts, _ = split(path)
    if not found.rel:
        raise error(_errno.EBUSY, path)
    parent = lookup("/" + "/".join(parts[:-1]))
    if not parent.is_dir():
        raise error(_errno.ENOTDIR, path)
    if parent.node is None:
        return copy_up(parent, path)
    return parent.node


def make_file(path, found, mode=0o666):
    """Create the file ``found`` names (it does not exist): the new file's backing."""
    parent = parent_for_new(path, found)
    if parent is None:
        if not found.rel:
            raise error(_errno.EBUSY, path)
        host(OP_WRITE, found.mount, found.rel, path, offset=0, data=b"", size=1)
        backing = HostFile(found.mount, found.rel, path)
    else:
        backing = File(mode & 0o666 & ~0o022)
        parent.entries[found.name] = backing
        parent.touch()
    note_written(split(path)[0])
    return backing


def backing_of(found, path, writing):
    """The backing of the existing file ``found``; copied up first in an overlay when ``writing``."""
    if found.node is not None:
        return found.node
    if writing and found.mount.upper is not None:
        return copy_up(found, path)
    return HostFile(found.mount, found.rel, path)


def remove_entry(found, path, want_dir):
    """Remove the file (or, with ``want_dir``, the empty directory) ``found``."""
    read_only(found.mount, path)
    parts, _ = split(path)
    if (found.mount is None and not parts) or (found.mount is not None and not found.rel) or \
            (found.mount is None and isinstance(found.node, Dir) and mount_points_below(parts)):
        raise error(_errno.EBUSY, path)
    if want_dir and not found.is_dir():
        raise error(_errno.ENOTDIR, path)
    if not want_dir and found.is_dir():
        raise error(_errno.EISDIR, path)
    if want_dir and list_names(path):
        raise error(_errno.ENOTEMPTY, path)
    on_host = found.mount is not None and found.mount.upper is None
    if on_host:
        host(OP_RMDIR if want_dir else OP_UNLINK, found.mount, found.rel, path)
    else:
        overlay = found.mount is not None
        if found.node is not None:
            found.parent.entries.pop(found.name)
            found.parent.touch()
            if isinstance(found.node, File):
                found.node.linked = False
                found.node.release()
        if overlay and _on_host(found.mount, found.rel):
            parent = parent_for_new(path, Found(mount=found.mount, rel=found.rel, name=found.name))
            parent.entries[found.name] = WHITEOUT
    note_removed(parts)


def _on_host(mount, rel):
    try:
        host(OP_STAT, mount, rel, None)
    except OSError:
        return False
    return not _opaque_above(mount.upper, rel[:-1])


def configure(mounts, max_bytes, max_files, request, current_run):
    """Set the session's mounts (index, sandbox path, mode, is_file), quotas, and the native functions that ask
    the host (``request``) and number the runs: once, when the session starts."""
    _Limits.max_bytes, _Limits.max_files = max_bytes, max_files
    _Host.request, _Host.run_id = staticmethod(request), staticmethod(current_run)
    del _mounts[:]
    for index, path, mode, is_file in mounts:
        _mounts.append(Mount(index, split(path)[0], mode, is_file))
    _mounts.sort(key=lambda m: -len(m.parts))
    for mount in _mounts:
        # The directories above a mount point exist in memory.
        node = ROOT
        for name in mount.parts[:-1]:
            child = node.entries.get(name)
            if not isinstance(child, Dir):
                child = node.entries[name] = Dir()
            node = child


ROOT.entries["tmp"] = Dir(0o1777)
ROOT.entries["dev"] = Dir(0o755)
ROOT.entries["dev"].entries["null"] = NullDevice()
