"""The sandbox's ``_sqlite3``: RustPython's, with SQLite confined to the session (the native module is handed
over as ``_sqlite3_native`` only while this imports).

SQLite runs inside the session process, which may open no file (its seccomp filter answers EPERM), so a
database lives in the session's memory: ``':memory:'`` as in CPython, and a path names a shared in-memory
database kept for the rest of the session (across cells, connections, checkpoints and forks), as a file on the
sandbox's filesystem would be, though ``os`` does not list it. ``ATTACH`` of a path and ``VACUUM INTO`` fail
as a file SQLite cannot open does. Each connection keeps its temporary tables in memory, and has a progress
handler that runs Python now and then, so that the session's time limit stops a runaway query (the limit's
exception, raised in the handler, interrupts SQLite and is raised again at the next instruction)."""

from _sandbox_native import adopt, handed_over

_sqlite3_native = handed_over("_sqlite3")
adopt(_sqlite3_native, globals())
del adopt, handed_over
_native_connect = _sqlite3_native.connect
del _sqlite3_native

# The database a path names -> a connection that keeps it alive while no other is open.
_KEPT = {}
# SQLite virtual-machine steps between two runs of the progress handler (~0.1 ms of work).
_STEPS_PER_TICK = 10_000
_URI_ARGUMENT = 6  # `uri`'s position after `database`


def _tick():
    return 0


def _session_database(path):
    """The URI of the in-memory database that stands for ``path`` in this session."""
    import os

    name = os.path.abspath(path)
    for character in "%?#":
        name = name.replace(character, f"%{ord(character):02X}")
    uri = f"file:{name}?mode=memory&cache=shared"
    if uri not in _KEPT:
        _KEPT[uri] = _native_connect(uri, uri=True)
    return uri


def connect(database, *args, **kwargs):
    import os

    uri = kwargs.get("uri", args[_URI_ARGUMENT] if len(args) > _URI_ARGUMENT else False)
    name = os.fsdecode(database) if isinstance(database, (str, bytes, os.PathLike)) else database
    if isinstance(name, str) and name not in ("", ":memory:"):
        if uri and name.startswith("file:"):
            path, _, query = name[len("file:"):].partition("?")
            in_memory = "mode=memory" in query.split("&") or path == ":memory:"
        else:
            path, in_memory = name, False
        if not in_memory:
            database = _session_database(path)
            kwargs["uri"] = True
            args = args[:_URI_ARGUMENT]
    connection = _native_connect(database, *args, **kwargs)
    connection.execute("pragma temp_store = memory")
    connection.set_progress_handler(_tick, _STEPS_PER_TICK)
    return connection


connect.__doc__ = _native_connect.__doc__
