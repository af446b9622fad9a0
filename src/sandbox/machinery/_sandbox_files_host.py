"""The host's API over a session's files (``interp.files``): write, read and list them as the session's code
would, between cells, through the same filesystem (``_sandbox_files``) and its ``os`` functions
(``_sandbox_files_os``)."""

import _sandbox_files_os as fos
from _sandbox_files import MAX_TRANSFER, NullDevice, lookup, mount_of, split


def _absolute(path):
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"a path in the sandbox must be absolute (start with '/'), got {path!r}")
    return path


def host_write(path, data):
    """``interp.files.write``: the file at ``path`` holds ``data`` (a str is written as UTF-8); its folders are made."""
    parts, _ = split(_absolute(path))
    if len(parts) > 1:
        fos.makedirs("/" + "/".join(parts[:-1]), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    fd = fos.open(path, fos.O_WRONLY | fos.O_CREAT | fos.O_TRUNC, 0o644)
    try:
        fos.write(fd, data)
    finally:
        fos.close(fd)


def host_read(path):
    """``interp.files.read``: the bytes of the file at ``path``."""
    fd = fos.open(_absolute(path), fos.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = fos.read(fd, MAX_TRANSFER)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        fos.close(fd)


def host_list(path="/"):
    """``interp.files.list``: the files below ``path``, sorted (mounts are entered only when ``path`` is in one)."""
    start_mount, _ = mount_of(split(_absolute(path))[0])
    files = []
    for top, dirs, names in fos.walk(path):
        paths = (top.rstrip("/") + "/" + name for name in names)
        # The session's files, not its devices (/dev/null): only a path in /dev is looked up again.
        files.extend(p for p in paths if not (p.startswith("/dev/") and isinstance(lookup(p, missing_ok=True).node, NullDevice)))
        dirs[:] = [d for d in dirs if mount_of(split(top.rstrip("/") + "/" + d)[0])[0] is start_mount]
    return sorted(files)
