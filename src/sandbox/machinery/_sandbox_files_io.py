"""``open()`` and ``FileIO`` over the sandbox's filesystem (module ``_sandbox_files_io``), written for
dspy-rust-interpreter. The raw file is ours; buffering, text decoding and newline handling are the VM's own
``_io`` classes, so files behave as CPython's.
"""

import _codecs
import _io

import _sandbox_files as _fs
import _sandbox_files_os as _os

DEFAULT_BUFFER_SIZE = 8192


class FileIO(_io._RawIOBase):
    """A raw file on a file descriptor of the sandbox's filesystem, as ``io.FileIO``."""

    def __init__(self, file, mode="r", closefd=True, opener=None):
        self._fd = -1
        if isinstance(file, float):
            raise TypeError("integer argument expected, got float")
        if not isinstance(mode, str):
            raise TypeError(f"FileIO() argument 'mode' must be str, not {type(mode).__name__}")
        modes = set(mode)
        if modes - set("xrwab+") or len(mode) != len(modes) or sum(c in "xrwa" for c in mode) != 1:
            raise ValueError(f"invalid mode: {mode}" if modes - set("xrwab+") or len(mode) != len(modes)
                             else "Must have exactly one of create/read/write/append mode and at most one plus")
        self._readable = "r" in mode or "+" in mode
        self._writable = "r" not in mode or "+" in mode
        self._appending = "a" in mode
        self._created = "x" in mode
        if self._readable and self._writable:
            flags = _os.O_RDWR
        else:
            flags = _os.O_RDONLY if self._readable else _os.O_WRONLY
        if "x" in mode:
            flags |= _os.O_CREAT | _os.O_EXCL
        elif "w" in mode:
            flags |= _os.O_CREAT | _os.O_TRUNC
        elif "a" in mode:
            flags |= _os.O_CREAT | _os.O_APPEND
        if isinstance(file, int) and not isinstance(file, bool):
            if file < 0:
                raise ValueError("negative file descriptor")
            _os.handle(file)
            fd = file
            self.name = file
        else:
            if not closefd:
                raise ValueError("Cannot use closefd=False with file name")
            self.name = file
            _fs.text_path(file, None)
            fd = opener(file, flags | _os.O_CLOEXEC) if opener is not None else _os.open(file, flags, 0o666)
            if not isinstance(fd, int):
                raise TypeError("expected integer from opener")
            if fd < 0:
                raise ValueError(f"opener returned {fd}")
        h = _os.handle(fd)
        if h.is_dir:
            if closefd:
                _os.close(fd)
            raise _fs.error(21, file if not isinstance(file, int) else None)
        self._fd = fd
        self._closefd = closefd
        base = "xb" if self._created else "ab" if self._appending else "rb" if self._readable else "wb"
        self.mode = base + ("+" if self._readable and self._writable else "")
        if self._appending:
            _os.lseek(fd, 0, _os.SEEK_END)

    def _checked(self):
        if self._fd < 0:
            raise ValueError("I/O operation on closed file")
        return self._fd

    @property
    def closefd(self):
        return self._closefd

    @property
    def _blksize(self):
        return DEFAULT_BUFFER_SIZE

    def fileno(self):
        return self._checked()

    def readable(self):
        self._checked()
        return self._readable

    def writable(self):
        self._checked()
        return self._writable

    def seekable(self):
        self._checked()
        return True

    def isatty(self):
        self._checked()
        return False

    def readinto(self, buffer):
        fd = self._checked()
        if not self._readable:
            raise _io.UnsupportedOperation("File not open for reading")
        view = memoryview(buffer).cast("B")
        data = _os.read(fd, len(view))
        view[:len(data)] = data
        return len(data)

    def read(self, size=-1):
        fd = self._checked()
        if not self._readable:
            raise _io.UnsupportedOperation("File not open for reading")
        if size is None or size < 0:
            return self.readall()
        return _os.read(fd, size)

    def readall(self):
        fd = self._checked()
        if not self._readable:
            raise _io.UnsupportedOperation("File not open for reading")
        h = _os.handle(fd)
        size = h.backing.size()
        data = _os.read(fd, max(size - h.pos, 0)) if size > h.pos else b""
        rest = _os.read(fd, DEFAULT_BUFFER_SIZE)
        return data + rest if rest else data

    def write(self, data):
        fd = self._checked()
        if not self._writable:
            raise _io.UnsupportedOperation("File not open for writing")
        return _os.write(fd, data)

    def seek(self, pos, whence=0):
        fd = self._checked()
        if isinstance(pos, float):
            raise TypeError("an integer is required")
        return _os.lseek(fd, pos, whence)

    def tell(self):
        return _os.lseek(self._checked(), 0, _os.SEEK_CUR)

    def truncate(self, size=None):
        fd = self._checked()
        if not self._writable:
            raise _io.UnsupportedOperation("File not open for writing")
        if size is None:
            size = self.tell()
        _os.ftruncate(fd, size)
        return size

    def close(self):
        if self._fd >= 0:
            try:
                super().close()
            finally:
                if self._closefd:
                    _os.close(self._fd)
                self._fd = -1

    @property
    def closed(self):
        return self._fd < 0

    def __repr__(self):
        if self._fd < 0:
            return "<_io.FileIO [closed]>"
        return f"<_io.FileIO name={self.name!r} mode={self.mode!r} closefd={self._closefd}>"

    def __getstate__(self):
        raise TypeError(f"cannot pickle '{type(self).__name__}' instances")


FileIO.__module__ = "_io"
FileIO.__qualname__ = FileIO.__name__ = "FileIO"


def open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    """Open file and return a stream, as the builtin ``open``."""
    if not isinstance(file, int) or isinstance(file, bool):
        file = _fs.fspath(file)
    if not isinstance(mode, str):
        raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
    if not isinstance(buffering, int):
        raise TypeError(f"'{type(buffering).__name__}' object cannot be interpreted as an integer")
    if encoding is not None and not isinstance(encoding, str):
        raise TypeError(f"open() argument 'encoding' must be str or None, not {type(encoding).__name__}")
    if errors is not None and not isinstance(errors, str):
        raise TypeError(f"open() argument 'errors' must be str or None, not {type(errors).__name__}")
    modes = set(mode)
    if modes - set("axrwb+t") or len(mode) > len(modes):
        raise ValueError(f"invalid mode: '{mode}'")
    creating, reading, writing, appending = "x" in modes, "r" in modes, "w" in modes, "a" in modes
    updating, text, binary = "+" in modes, "t" in modes, "b" in modes
    if text and binary:
        raise ValueError("can't have text and binary mode at once")
    if creating + reading + writing + appending > 1:
        raise ValueError("must have exactly one of create/read/write/append mode")
    if not (creating or reading or writing or appending):
        raise ValueError("Must have exactly one of create/read/write/append mode and at most one plus")
    if binary and encoding is not None:
        raise ValueError("binary mode doesn't take an encoding argument")
    if binary and errors is not None:
        raise ValueError("binary mode doesn't take an errors argument")
    if binary and newline is not None:
        raise ValueError("binary mode doesn't take a newline argument")
    if binary and buffering == 1:
        import warnings

        warnings.warn("line buffering (buffering=1) isn't supported in binary mode, the default buffer size "
                      "will be used", RuntimeWarning, 2)
    raw_mode = ("x" if creating else "r" if reading else "w" if writing else "a") + ("+" if updating else "")
    raw = FileIO(file, raw_mode, closefd, opener=opener)
    result = raw
    try:
        line_buffering = buffering == 1
        if buffering == 1 or buffering < 0:
            buffering = DEFAULT_BUFFER_SIZE
        if buffering == 0:
            if binary:
                return result
            raise ValueError("can't have unbuffered text I/O")
        if updating:
            buffer = _io.BufferedRandom(raw, buffering)
        elif creating or writing or appending:
            buffer = _io.BufferedWriter(raw, buffering)
        else:
            buffer = _io.BufferedReader(raw, buffering)
        result = buffer
        if binary:
            return result
        encoding = "UTF-8" if encoding in (None, "locale") else encoding
        try:
            _codecs.lookup(encoding)
        except LookupError:
            # CPython names the encoding as given (the VM's lookup names it normalised).
            raise LookupError(f"unknown encoding: {encoding}") from None
        text_stream = _io.TextIOWrapper(buffer, encoding, errors, newline, line_buffering)
        result = text_stream
        text_stream.mode = mode
        return result
    except BaseException:
        result.close()
        raise


def fdopen(fd, mode="r", buffering=-1, encoding=None, *args, **kwargs):
    if not isinstance(fd, int):
        raise TypeError(f"invalid fd type ({type(fd)}, expected integer)")
    return open(fd, mode, buffering, encoding, *args, **kwargs)


def open_code(path):
    """``io.open_code``: what importlib's file loaders read source and bytecode with."""
    if not isinstance(path, str):
        raise TypeError(f"open_code() argument 'path' must be str, not {type(path).__name__}")
    return open(path, "rb")


def install():
    """Make ``open``, ``io.open``, ``io.open_code`` and ``io.FileIO`` these."""
    import builtins
    import sys

    builtins.open = open
    _io.open = open
    _io.open_code = open_code
    _io.FileIO = FileIO
    io = sys.modules.get("io")
    if io is not None:
        io.open = open
        io.open_code = open_code
        io.FileIO = FileIO
