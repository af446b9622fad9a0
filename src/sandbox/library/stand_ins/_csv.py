"""The sandbox's ``_csv``, written for dspy-rust-interpreter.

RustPython's native ``_csv`` keeps its dialect registry and its field size limit in process-wide state, so
every session would see the dialects and the limit any other session set. Here both belong to the session
(this module); the native reader and writer (handed over as ``_csv_native`` while this module imports) are
only ever given a Dialect object, never a name, and the session's field limit is applied to each row read.
"""

import sys

from _sandbox_native import handed_over

# Keep what reads no process-wide state, and forget the module.
_csv_native = handed_over("_csv", "use the csv module (it keeps its state in _csv, for this session), or ")
del handed_over
from _csv_native import (
    QUOTE_ALL,
    QUOTE_MINIMAL,
    QUOTE_NONE,
    QUOTE_NONNUMERIC,
    QUOTE_NOTNULL,
    QUOTE_STRINGS,
    Dialect,
    Error,
)

# The same value in every session: the native limit never binds, this module's does.
_csv_native.field_size_limit(sys.maxsize)
_native_reader = _csv_native.reader
_native_writer = _csv_native.writer
del _csv_native

_dialects = {}
_field_limit = 131072


def register_dialect(name, dialect=None, **fmtparams):
    """Register a dialect (a Dialect, a class with the dialect attributes, or keywords) under name."""
    if not isinstance(name, str):
        raise TypeError("dialect name must be a string")
    _dialects[name] = _make_dialect(dialect, **fmtparams)


def unregister_dialect(name):
    """Remove the dialect registered under name."""
    if name not in _dialects:
        raise Error("unknown dialect")
    del _dialects[name]


def get_dialect(name):
    """The dialect registered under name."""
    try:
        return _dialects[name]
    except (KeyError, TypeError):
        raise Error("unknown dialect") from None


def list_dialects():
    """The names of the registered dialects."""
    return list(_dialects)


def field_size_limit(*new_limit):
    """field_size_limit([limit]): the largest field a reader accepts; with an argument, set it, returning
    the previous limit."""
    global _field_limit
    if len(new_limit) > 1:
        raise TypeError(f"field_size_limit expected at most 1 argument, got {len(new_limit)}")
    previous = _field_limit
    if new_limit:
        if not isinstance(new_limit[0], int):
            raise TypeError("limit must be an integer")
        _field_limit = new_limit[0]
    return previous


def _dialect(dialect):
    return get_dialect(dialect) if isinstance(dialect, str) else dialect


def _make_dialect(dialect=None, **fmtparams):
    # The native Dialect takes no keywords; a reader over nothing combines a dialect and keywords into one.
    if dialect is None:
        return _native_reader([], **fmtparams).dialect
    return _native_reader([], _dialect(dialect), **fmtparams).dialect


class _Reader:
    """A native reader, held to this session's field size limit."""

    def __init__(self, native):
        self._native = native

    def __iter__(self):
        return self

    def __next__(self):
        row = next(self._native)
        limit = _field_limit
        for field in row:
            # QUOTE_NONNUMERIC makes unquoted fields floats (the native reader read them within the limit).
            if isinstance(field, str) and len(field) > limit:
                raise Error(f"field larger than field limit ({limit})")
        return row

    @property
    def dialect(self):
        return self._native.dialect

    @property
    def line_num(self):
        return self._native.line_num


def reader(csvfile, dialect="excel", **fmtparams):
    """Rows of csvfile (any iterable of lines), parsed by dialect (a registered name or a Dialect)."""
    return _Reader(_native_reader(csvfile, _dialect(dialect), **fmtparams))


def writer(csvfile, dialect="excel", **fmtparams):
    """A writer of rows to csvfile (anything with write()), formatted by dialect."""
    return _native_writer(csvfile, _dialect(dialect), **fmtparams)
