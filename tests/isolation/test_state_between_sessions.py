"""What one session can leave for, or do to, the next session of the same host process, and what
concurrent sessions share. These attacks broke the in-process design (sessions shared reused worker threads
and their RustPython state); every session now runs in a process of its own, and each test pins that.

Every scenario runs in a child process (``run_isolated``). Each test fails while the leak exists; an attempt
the sandbox refuses (an exception in the first session) counts as fixed.
"""

from __future__ import annotations

from isolated import run_isolated

# In the child: run each code in a new session, one after the other.
IN_SEQUENCE = """
def in_sequence(*codes):
    out, processes = [], set()
    for code in codes:
        interp = RustInterpreter()
        out.append(outcome(interp, code))
        session = interp._session
        if session is not None:
            processes.add(session.pid)
        interp.shutdown()
    results["processes"] = len(processes)
    return out
"""


def sessions(*codes: str) -> list[dict]:
    """Run each sandbox code in a new session, in order, in one host process (a child of the test run)."""
    results = run_isolated(IN_SEQUENCE + f"results['runs'] = in_sequence(*{codes!r})\n", timeout=120)
    assert results["processes"] == len(codes), "each session has a process of its own"
    return results["runs"]


# --- Critical: a session's code runs inside the next session ----------------------------------------------------

HIJACK_JSON_SCANNER = """
import _json
stolen = []
original = _json.make_scanner.__call__
def spy(self, s, idx, _stolen=stolen, _original=original):
    _stolen.append(s)
    value, end = _original(self, s, idx)
    return ({"stolen": _stolen}, end)
_json.make_scanner.__call__ = spy
"""


def test_a_static_native_type_hijacked_by_a_session_does_not_spy_on_the_next():
    # _json.Scanner (what json.loads uses) is a static type of the thread's context without IMMUTABLETYPE: its
    # __call__ can be replaced, and the replacement runs in every later session on the thread, seeing its data.
    runs = sessions(HIJACK_JSON_SCANNER, 'import json\njson.loads(\'{"ssn": "123-45-6789"}\')')
    assert runs[1]["kind"] == "value" and runs[1]["value"] == "{'ssn': '123-45-6789'}", runs[1]


PLANT_NONE_REPR = """
def spy(self, _E=Exception, _repr=repr):
    try:
        raise _E
    except _E as e:
        f = e.__traceback__.tb_frame
    while f.f_back is not None:
        f = f.f_back
    return "SPY " + _repr(f.f_globals.get("password"))
type(None).__repr__ = spy
"""


def test_a_method_planted_on_nonetype_does_not_run_in_the_next_session():
    # The planted __repr__ walks up to the next session's module frame and reads its globals (call_tool too).
    runs = sessions(PLANT_NONE_REPR, "password = 'hunter2'\nrepr(None)")
    assert runs[1]["kind"] == "value" and runs[1]["value"] == "'None'", runs[1]


FAKE_PYCODECS = """
import sys, types, _codecs
fake = types.ModuleType("_pycodecs")
def charmap_decode(data, errors=None, table=None, _seen=[]):
    _seen.append(data)
    return (f"SPY {_seen}", 1)
fake.charmap_decode = charmap_decode
sys.modules["_pycodecs"] = fake
_codecs.charmap_decode(b"session-1")
"""


def test_codecs_delegates_cached_per_thread_do_not_run_an_earlier_sessions_function():
    # _codecs.charmap_decode/charmap_encode/charmap_build/readbuffer_encode delegate to `_pycodecs`, looked up
    # through sys.modules (which sandbox code controls) and cached in a per-thread static cell for good.
    probe = "import codecs\ncodecs.decode(b'data-of-a-later-session', 'cp437')"
    runs = sessions(FAKE_PYCODECS, probe, probe)
    for run in runs[1:]:
        assert "SPY" not in run.get("value", "") and "session-1" not in run.get("value", ""), run


def test_a_session_cannot_stop_the_next_sessions_vm_from_starting():
    # NoneType.__bool__ persists on the thread; the next VM's start-up imports fail and RustPython panics
    # ("essential initialization failed"): the next user gets "the sandbox could not be started".
    results = run_isolated(
        """
        first = RustInterpreter()
        results["first"] = outcome(first, "type(None).__bool__ = lambda self: True\\n1")
        first.shutdown()
        second = RustInterpreter()
        results["second"] = outcome(second, "1 + 1")
        second.shutdown()
        """
    )
    assert results["second"]["kind"] == "value" and results["second"]["value"] == "2", results["second"]


STATIC_TYPES = r"""
import sys, importlib
for m in ("itertools", "operator", "_json", "datetime", "_sre", "ast", "_io", "_collections", "_contextvars",
          "zlib", "_bz2", "_lzma", "_tokenize", "_symtable", "time", "functools", "weakref", "_abc"):
    try:
        importlib.import_module(m)
    except Exception:
        pass
seen = {}
def walk(t):
    if id(t) in seen:
        return
    seen[id(t)] = t
    for s in type.__subclasses__(t):
        walk(s)
walk(object)
for mod in list(sys.modules.values()):
    for v in list(getattr(mod, "__dict__", {}).values()):
        walk(v if isinstance(v, type) else type(v))
static = [t for t in seen.values() if not t.__flags__ & (1 << 9)]
"""


def test_no_static_type_keeps_an_attribute_planted_by_an_earlier_session():
    # ~200 static types (NoneType, slice, cell, mappingproxy, traceback, itertools.*, operator.*, _json.*,
    # datetime.timezone, _sre.*, ast.*, sys.flags, ...) accept new attributes; the next session sees them.
    leave = STATIC_TYPES + (
        "planted = 0\nfor t in static:\n    try:\n        type.__setattr__(t, 'planted_by_session_1', 'SECRET')\n"
        "        planted += 1\n    except Exception:\n        pass\nplanted"
    )
    probe = STATIC_TYPES + "sorted(t.__qualname__ for t in static if 'planted_by_session_1' in t.__dict__)"
    runs = sessions(leave, probe)
    assert runs[1]["kind"] == "value" and runs[1]["value"] == "[]", runs[1]["value"][:500]


# --- High: classes RustPython caches per thread (#[pyattr(once)]) that are not made immutable --------------------

ONCE_CLASSES = (
    "(binascii.Error, binascii.Incomplete, zlib.error, _pickle.PickleError, _pickle.PicklingError, "
    "_pickle.UnpicklingError, _lzma.LZMAError)"
)

RENAME_AND_REBASE = f"""
import binascii, zlib, _pickle, _lzma
for cls in {ONCE_CLASSES}:
    for name in ("__name__", "__qualname__"):
        try:
            setattr(cls, name, "SECRET")
        except Exception:
            pass
try:
    binascii.Error.__bases__ = (KeyError,)
except Exception:
    pass
"""

ONCE_PROBE = f"""
import binascii, zlib, _pickle, _lzma, base64
try:
    base64.b64decode("a")
    caught = "no error"
except ValueError:
    caught = "ValueError"
except Exception:
    caught = "escaped"
([(c.__name__, c.__qualname__) for c in {ONCE_CLASSES}], caught)
"""


def test_classes_cached_per_thread_keep_no_name_or_base_from_an_earlier_session():
    # binascii.Error/Incomplete, zlib.error, _pickle.*Error and _lzma.LZMAError are cached per thread like
    # struct.error, but not in thread_context's CACHED_CLASSES: heap types, mutable, never reset.
    runs = sessions(RENAME_AND_REBASE, ONCE_PROBE)
    assert runs[1]["kind"] == "value", runs[1]
    assert "SECRET" not in runs[1]["value"] and "'ValueError')" in runs[1]["value"], runs[1]


def test_classes_cached_per_thread_still_work_after_an_ordinary_session():
    # Teardown empties the dict of every heap class it finds and these outlive the VM: the next session gets
    # them without __module__ (AttributeError) even though the first session did nothing unusual.
    use = (
        "import binascii, zlib, _pickle, _lzma\n"
        "[c.__module__ for c in (binascii.Error, zlib.error, _pickle.PickleError, _lzma.LZMAError)]"
    )
    first, second = sessions(use, use)
    assert first["kind"] == "value", first
    assert second["kind"] == "value" and second["value"] == first["value"], second


# --- High: process-wide native state reachable from sandbox code --------------------------------------------------


def test_the_native_csv_dialect_registry_is_not_reachable_across_sessions():
    # The stand-in _csv keeps dialects per session, but the native module stays importable as `_csv_native`
    # (and is an attribute of the stand-in: `_csv._csv_native`).
    leave = "import _csv_native\n_csv_native.register_dialect('planted_secret', delimiter=';')"
    probe = "try:\n    import _csv_native\n    r = _csv_native.list_dialects()\nexcept ImportError:\n    r = []\nr"
    runs = sessions(leave, probe)
    assert "planted_secret" not in runs[1].get("value", ""), runs[1]


def test_a_concurrent_session_cannot_change_anothers_csv_field_limit():
    results = run_isolated(
        """
        a, b = RustInterpreter(), RustInterpreter()
        read = "import csv, io\\nlist(csv.reader(io.StringIO('hello,world')))"
        results["before"] = outcome(a, read)
        results["other"] = outcome(b, "import _csv_native\\n_csv_native.field_size_limit(2)")
        results["after"] = outcome(a, read)
        results["processes"] = len({a._session.pid, b._session.pid})
        a.shutdown()
        b.shutdown()
        """
    )
    assert results["processes"] == 2
    assert results["after"]["kind"] == "value" and results["after"]["value"] == results["before"]["value"], results["after"]


# --- Low: side channels ----------------------------------------------------------------------------------------
