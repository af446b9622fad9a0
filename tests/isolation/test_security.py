"""Security suite: escape and denial-of-service attempts against the sandbox, each with the outcome a secure
sandbox must give.

Every attempt runs in a child process (see isolated.py), so a crash or a hang of the host process is itself a
test failure. Cheap attempts are grouped, one child per group, each attempt in a fresh interpreter and with its
own test id; attempts that may crash or block the host get a child of their own.

An attempt that shows a real weakness keeps asserting the SECURE behaviour, so it fails until the weakness is
fixed. Sandbox code is written as double-quoted literals, which the fuzz harness also picks up as seeds.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from isolated import run_child, run_isolated

# Seconds a stopped run may take past its limit (a slow machine, not a hang).
SLACK = 3.0
# Seconds after which a child process counts as hung: the host process is blocked.
HANG = 25.0
# What every attempt's session must still answer afterwards ("6 * 7"): the session survived.
ALIVE = "42"


# Helpers every child gets: host tools that record what reaches the host, and `attempt(code, ...)`, which runs
# `code` in a fresh interpreter and reports its outcome, whether the session still works, and what the tools saw.
HELPERS = r'''
import os, threading

RECORDED, SEEN, CURRENT = [], [], []

def _echo(x=None):
    SEEN.append((type(x).__name__, repr(x)[:100]))
    return x

def _record(what=None):
    RECORDED.append(what)

def _fail():
    raise KeyError("missing")

def _selfref():
    a = []
    a.append(a)
    return a

def _gen():
    yield 1

def _leak_module():
    return os

def _reenter():
    return CURRENT[-1].execute("1")

TOOLS = {"echo": _echo, "record": _record, "fail": _fail, "selfref": _selfref, "gen": _gen,
         "leak_module": _leak_module, "reenter": _reenter}

def shown(value):
    try:
        return repr(value)
    except ValueError:  # an int past the host's own int/str digit limit
        return f"<{type(value).__name__} too large to show>"

def run(interp, code, **kwargs):
    """Like isolated.outcome, and also for code that does not parse or values the host cannot repr."""
    started = time.perf_counter()
    try:
        result = {"kind": "value", "value": shown(interp.execute(code, **kwargs))}
    except CodeExecutionError as error:
        result = {"kind": "error", "type": error.error_type, "message": str(error)}
    except CodeInterpreterError as error:
        result = {"kind": "dead", "message": str(error)}
    except SyntaxError as error:
        result = {"kind": "syntax", "message": str(error.msg)}
    result["seconds"] = time.perf_counter() - started
    return result

def attempt(code, tools=False, **options):
    if code.startswith("EVAL:"):
        code = eval(code[5:])
    options.setdefault("timeout", 5.0)
    RECORDED.clear(); SEEN.clear()
    interp = RustInterpreter(tools=dict(TOOLS) if tools else None, **options)
    CURRENT.append(interp)
    result = run(interp, code)
    result["recorded"], result["seen"] = list(RECORDED), list(SEEN)
    after = run(interp, "6 * 7")
    result["after"] = after.get("value", after["kind"])
    interp.shutdown()
    return result

class Heartbeat:
    """A host thread ticking every 10 ms: a long gap between ticks means the host's GIL was held meanwhile."""
    def __init__(self):
        self.last, self.longest = time.perf_counter(), 0.0
        threading.Thread(target=self._beat, daemon=True).start()
    def _beat(self):
        while True:
            time.sleep(0.01)
            now = time.perf_counter()
            self.longest, self.last = max(self.longest, now - self.last), now
    def longest_stall_during(self, call):
        time.sleep(0.05)
        self.longest = 0.0
        result = call()
        time.sleep(0.05)  # a stall lasting until the end is measured at the next tick
        return result, self.longest
'''


# ---------------------------------------------------------------------------------------------------------
# expected outcomes
# ---------------------------------------------------------------------------------------------------------


@dataclass
class Expect:
    """What a secure sandbox must answer to an attempt; `check(result)` asserts it."""

    kind: str
    error_type: str | None = None
    parts: tuple[str, ...] = ()
    value: str | None = None
    within: float | None = None
    alive: bool = True
    recorded: list[Any] | None = None
    seen: list[Any] | None = None
    extra: Callable[[dict[str, Any]], None] | None = None

    def check(self, name: str, r: dict[str, Any]) -> None:
        assert r["kind"] == self.kind, f"{name}: expected a {self.kind} outcome, got {r}"
        if self.error_type is not None:
            assert r["type"] == self.error_type, f"{name}: expected {self.error_type}, got {r['type']}: {r}"
        for part in self.parts:
            assert part in r.get("message", ""), f"{name}: {part!r} is not in the message {r.get('message')!r}"
        if self.value is not None:
            assert r["value"] == self.value, f"{name}: expected the value {self.value}, got {r['value'][:500]}"
        if self.within is not None:
            limit = self.within + SLACK
            assert r["seconds"] < limit, f"{name}: took {r['seconds']:.2f} s, more than {limit} s"
        if self.alive:
            assert r.get("after") == ALIVE, f"{name}: the session did not survive the attempt: {r.get('after')}"
        if self.recorded is not None:
            assert r["recorded"] == self.recorded, f"{name}: host tool calls {r['recorded']}, expected {self.recorded}"
        if self.seen is not None:
            assert r["seen"] == self.seen, f"{name}: the tool received {r['seen']}, expected {self.seen}"
        if self.extra is not None:
            self.extra(r)


def error(error_type: str, *parts: str, **kw: Any) -> Expect:
    return Expect("error", error_type=error_type, parts=parts, **kw)


def value(expected_repr: str, **kw: Any) -> Expect:
    return Expect("value", value=expected_repr, **kw)


def syntax(*parts: str, **kw: Any) -> Expect:
    return Expect("syntax", parts=parts, **kw)


def no_module(name: str) -> Expect:
    return error("ModuleNotFoundError", f"No module named '{name}'")


def refused(name: str, reason: str) -> Expect:
    """A module the sandbox refuses says so, and why (its table: src/sandbox/vm/stdlib.rs)."""
    return error("ModuleNotFoundError", f"module '{name}' is not available in the sandbox: it {reason}")


# A host path is looked up in the session's own filesystem (in memory; docs/files.md), where it does not exist.
HOST_FILE_NOT_FOUND = "No such file or directory: '/etc/passwd'"
NO_FILEIO = "Couldn't get FileIO"

# ---------------------------------------------------------------------------------------------------------
# groups of cheap attempts: name -> (sandbox code, expected outcome); options go to RustInterpreter()
# ---------------------------------------------------------------------------------------------------------

GROUPS: dict[str, dict[str, tuple[str, Expect]]] = {}

# Host files: no way to open, read, stat or list a host file, through any layer of io or importlib. Every file
# API works on the session's own filesystem, where host paths do not exist.
GROUPS["files"] = {
    "open": ("open('/etc/passwd').read()", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "io_open": ("import io\nio.open('/etc/passwd', 'rb').read()", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "_io_open": ("import _io\n_io.open('/etc/passwd').read()", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "_io_FileIO": ("import _io\n_io.FileIO('/etc/passwd')", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "io_FileIO": ("import io\nio.FileIO('/etc/passwd')", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    # /dev/null is the sandbox's own null device (os.devnull), not the host's.
    "host_folders_are_absent": (
        "import os\nsorted(os.listdir('/')), sorted(os.listdir('/dev')), [os.path.exists(p) for p in ('/etc', '/proc/self/environ', '/dev/zero', '/root', '/home')]",
        value("(['dev', 'tmp'], ['null'], [False, False, False, False, False])"),
    ),
    "io_open_code": ("import io\nio.open_code('/etc/passwd')", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "loader_get_data": (
        "import importlib.machinery\nimportlib.machinery.SourceFileLoader('x', '/etc/passwd').get_data('/etc/passwd')",
        error("FileNotFoundError", HOST_FILE_NOT_FOUND),  # io.open_code reads the sandbox's files only
    ),
    "loader_get_source_bootstrapped": (
        "import _frozen_importlib_external as ext, _frozen_importlib as boot\next._set_bootstrap_module(boot)\next.SourceFileLoader('pw', '/etc/passwd').get_source('pw')",
        error("ImportError", "source not available through get_data()"),
    ),
    "file_finder": (
        "import _frozen_importlib_external as ext, _frozen_importlib as boot\next._set_bootstrap_module(boot)\next.FileFinder('/usr/lib/python3', (ext.SourceFileLoader, ['.py'])).find_spec('os')",
        value("None"),
    ),
    "linecache_getlines": ("import linecache\nlinecache.getlines('/etc/passwd')", value("[]")),
    "linecache_update": (
        "import linecache\nlinecache.updatecache('/etc/passwd'), linecache.getline('/etc/hostname', 1)",
        value("([], '')"),
    ),
    "tokenize_open": ("import tokenize\ntokenize.open('/etc/passwd')", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "codecs_open": (
        "import codecs, warnings\nwarnings.simplefilter('ignore')\ncodecs.open('/etc/passwd')",
        error("FileNotFoundError", HOST_FILE_NOT_FOUND),
    ),
    "zipimport": ("import zipimport\nzipimport.zipimporter('/etc/passwd')", error("ZipImportError", "not a Zip file")),
    "zipimport_is_no_existence_oracle": (
        "import zipimport\nseen = set()\nfor p in ['/etc/passwd', '/etc', '/nonexistent/x.zip']:\n    try:\n        zipimport.zipimporter(p)\n    except Exception as e:\n        seen.add(str(e))\nsorted(seen)",
        value("['not a Zip file']"),
    ),
    "os_listdir": ("import os\nos.listdir('/etc')", error("FileNotFoundError", "No such file or directory: '/etc'")),
    "os_stat": ("import os\nos.stat('/etc/passwd')", error("FileNotFoundError", HOST_FILE_NOT_FOUND)),
    "imp_create_dynamic_dlopen": (
        "import _imp\nclass Spec:\n    name = 'evil'\n    origin = '/lib/x86_64-linux-gnu/libc.so.6'\n_imp.create_dynamic(Spec())",
        error("ImportError", "dynamic module does not define module export function"),
    ),
}

# Network: nothing can open a connection. `socket` is the sandbox's own (its names, for asyncio; every socket
# refused); the native `_socket` and everything above it are absent.
NO_NETWORK = "the sandbox has no network: sockets are not available"
GROUPS["network"] = {
    "socket": ("import socket\nsocket.socket()", error("PermissionError", NO_NETWORK)),
    "socket_create_connection": (
        "import socket\nsocket.create_connection(('example.com', 80))",
        error("PermissionError", NO_NETWORK),
    ),
    "socket_getaddrinfo": ("import socket\nsocket.getaddrinfo('example.com', 80)", error("PermissionError", NO_NETWORK)),
    "socket_socketpair": ("import socket\nsocket.socketpair()", error("PermissionError", NO_NETWORK)),
    "_socket": ("import _socket", refused("_socket", "reaches the network")),
    "urllib_request": (
        "import urllib.request\nurllib.request.urlopen('http://example.com')",
        error("URLError", "the sandbox has no network"),
    ),
    "http_client": (
        "import http.client\nhttp.client.HTTPConnection('example.com').request('GET', '/')",
        error("PermissionError", "the sandbox has no network"),
    ),
    "ssl": ("import ssl", refused("ssl", "reaches the network")),
    "select": ("import select", refused("select", "reaches the host system")),
    "import_module_socket": ("import importlib\nimportlib.import_module('_socket')", refused("_socket", "reaches the network")),
}

# Processes: no module or os function starts, replaces or signals a process (`subprocess` is the sandbox's own:
# its names, every start refused).
NO_PROGRAMS = "the sandbox cannot start programs"
GROUPS["processes"] = {
    "subprocess_run": ("import subprocess\nsubprocess.run(['id'])", error("PermissionError", NO_PROGRAMS)),
    "subprocess_popen": ("import subprocess\nsubprocess.Popen(['id'])", error("PermissionError", NO_PROGRAMS)),
    "subprocess_check_output": (
        "import subprocess\nsubprocess.check_output('id', shell=True)",
        error("PermissionError", NO_PROGRAMS),
    ),
    "os_system": ("import os\nos.system('id')", error("PermissionError", "os.system() is not available in the sandbox")),
    "os_popen": ("import os\nos.popen('id')", error("PermissionError", "os.popen() is not available in the sandbox")),
    "os_execv": ("import os\nos.execv('/bin/sh', ['sh'])", error("PermissionError", "os.execv() is not available")),
    "os_kill": ("import os\nos.kill(1, 9)", error("PermissionError", "os.kill() is not available in the sandbox")),
    "posix_fork": ("import posix\nposix.fork()", error("AttributeError", "module 'posix' has no attribute 'fork'")),
    "os_exit": ("import os\nos._exit(1)", error("AttributeError", "module 'os' has no attribute '_exit'")),
    "_posixsubprocess": ("import _posixsubprocess", refused("_posixsubprocess", "starts processes")),
    "pty": ("import pty", refused("pty", "drives a terminal")),
    "multiprocessing": ("import multiprocessing", refused("multiprocessing", "starts processes")),
    "sys_exit_does_not_exit_the_host": ("import sys\nsys.exit(3)", error("SystemExit", "3")),
}

# Import tricks: every door of the import system leads to the same allow-list.
GROUPS["imports"] = {
    "dunder_import_fromlist": (
        "__import__('_posixsubprocess', fromlist=['fork_exec'])",
        refused("_posixsubprocess", "starts processes"),
    ),
    "dunder_import_stand_in": ("__import__('subprocess', fromlist=['run']).run(['id'])", error("PermissionError", NO_PROGRAMS)),
    "dunder_import_os_fromlist": (
        "__import__('os', fromlist=['system']).system('id')",
        error("PermissionError", "os.system() is not available in the sandbox"),
    ),
    "import_module": (
        "import importlib\nimportlib.import_module('_posixsubprocess')",
        refused("_posixsubprocess", "starts processes"),
    ),
    "spec_from_file_location": (
        "import _frozen_importlib_external as ext, _frozen_importlib as boot\next._set_bootstrap_module(boot)\nimport importlib.util\nspec = importlib.util.spec_from_file_location('subprocess', '/usr/local/lib/python3.11/subprocess.py')\nspec.loader.exec_module(type(importlib)('subprocess'))",
        error("FileNotFoundError", "No such file or directory: '/usr/local/lib/python3.11/subprocess.py'"),
    ),
    "meta_path_with_path_finder_and_sys_path": (
        "import sys, _frozen_importlib_external as ext, _frozen_importlib as boot\next._install(boot)\nsys.path.insert(0, '/usr/local/lib/python3.11')\nimport pty",
        refused("pty", "drives a terminal"),
    ),
    "sys_path_insertion": (
        "import sys\nsys.path.insert(0, '/usr/local/lib/python3.11')\nimport pty",
        refused("pty", "drives a terminal"),
    ),
    "sys_path_insertion_gets_the_stand_in": (
        "import sys\nsys.path.insert(0, '/usr/local/lib/python3.11')\nimport subprocess\nsubprocess.run(['id'])",
        error("PermissionError", NO_PROGRAMS),
    ),
    "imp_create_builtin_socket": ("import _imp\nclass Spec:\n    name = '_socket'\n_imp.create_builtin(Spec())", value("None")),
    "imp_init_frozen": ("import _imp\n_imp.init_frozen('pty')", error("ImportError", "No such frozen object named pty")),
    # gc is there without the functions that hand out every object the VM holds, however it is imported.
    "gc_get_objects": ("import gc\ngc.get_objects()", error("AttributeError", "module 'gc' has no attribute 'get_objects'")),
    "gc_get_referrers": (
        "import gc\ngc.get_referrers(sys)",
        error("AttributeError", "module 'gc' has no attribute 'get_referrers'"),
    ),
    "gc_get_referents": (
        "import importlib\nimportlib.import_module('gc').get_referents(1)",
        error("AttributeError", "module 'gc' has no attribute 'get_referents'"),
    ),
    "gc_imported_again": (
        "import sys, gc\ndel sys.modules['gc']\nimport gc\ngc.get_objects()",
        error("ImportError", "gc can be imported once per session"),
    ),
    "gc_reloaded": (
        "import importlib, gc\nimportlib.reload(gc)\ngc.get_objects()",
        error("ImportError", "gc can be imported once per session"),
    ),
    "gc_native_by_name": ("import gc_native", no_module("gc_native")),
    # A builtin function's __self__ is the module it was made in: for those a stand-in keeps of its native module,
    # the stand-in (as CPython's gc.collect.__self__ is gc), never the native module it hides.
    "gc_native_through_self": (
        "import gc\ng = gc.collect.__self__\n(g is gc, getattr(g, 'get_objects', None))",
        value("(True, None)"),
    ),
    "csv_native_through_self": (
        "import _csv\n[f.__self__ is _csv for f in vars(_csv).values() if type(f) is type(len)]",
        value("[True, True]"),
    ),
    "sqlite_native_through_self": (
        "import _sqlite3\n{f.__self__.__name__ for f in vars(_sqlite3).values() if type(f) is type(len)}",
        value("{'_sqlite3'}"),
    ),
    "self_of_other_builtins": (
        "import math\n(len.__self__.__name__, math.sqrt.__self__ is math, [].append.__self__)",
        value("('builtins', True, [])"),
    ),
    "gc_create_builtin": (
        "import _imp, importlib.machinery as m\ngetattr(_imp.create_builtin(m.ModuleSpec('gc', None)), 'get_objects', None)",
        value("None"),
    ),
    # Threads are the sandbox's scheduler's, run one at a time on the VM's thread: no OS thread is made.
    "threading": (
        "import threading\nseen = []\nt = threading.Thread(target=seen.append, args=(1,))\nt.start()\nt.join()\n(seen, t.is_alive())",
        value("([1], False)"),
    ),
    "threading_timer": (
        "import threading\nfired = []\nt = threading.Timer(0, fired.append, args=(1,))\nt.start()\nt.join()\nfired",
        value("[1]"),
    ),
    "signal": (
        "import signal\nsignal.signal(signal.SIGINT, print)",
        error("NotImplementedError", "the sandbox does not deliver signals"),
    ),
    "signal_kill": (
        "import signal\nsignal.pthread_kill(1, signal.SIGKILL)",
        error("NotImplementedError", "the sandbox does not deliver signals"),
    ),
    "signal_alarm": ("import signal\nsignal.alarm(1)", error("NotImplementedError", "the sandbox does not deliver signals")),
    "_signal": ("import _signal", refused("_signal", "is CPython's C accelerator")),
    "ctypes": (
        "import ctypes\nctypes.CDLL('libc.so.6')",
        error("OSError", "loading native code is not available in the sandbox"),
    ),
    "_ctypes": ("import _ctypes", refused("_ctypes", "loads native code")),
    "cffi": ("import cffi", no_module("cffi")),
    "mmap": ("import mmap", refused("mmap", "loads native code")),
}

# Class walks: everything reachable from object.__subclasses__() belongs to the sandbox's own standard library,
# and the classic gadgets (FileIO, Popen, os._wrap_close, catch_warnings' builtins) lead nowhere.
# The native `_pickle` names its classes' module "pickle", as the Python `pickle` module over it does.
SANDBOX_TOP_MODULES = (
    "['builtins', 'sys', 'sandbox', 'tools', '_io', 'io', '_thread', '_typing', 'typing', 'types', 'time', 'ast', "
    "'abc', '_abc', 'codecs', 'encodings', 'weakref', '_weakref', '_weakrefset', 'string', '_frozen_importlib', "
    "'_frozen_importlib_external', 'collections', '_collections', '_collections_abc', 'json', '_json', 're', "
    "'_sre', 'functools', '_functools', 'itertools', 'operator', '_operator', 'datetime', '_datetime', "
    "'_pydatetime', 'decimal', '_decimal', '_pydecimal', 'fractions', 'numbers', 'random', '_random', "
    "'statistics', 'dataclasses', 'enum', 'copy', 'difflib', 'hashlib', '_hashlib', 'hmac', 'csv', '_csv', "
    "'pprint', 'contextlib', 'struct', '_struct', 'zlib', 'array', 'uuid', 'graphlib', 'inspect', 'dis', "
    "'traceback', 'tokenize', '_tokenize', 'warnings', '_py_warnings', 'calendar', 'html', '_markupbase', "
    "'_sandbox_refused', '_sandbox_tzdata', '_multibytecodec', '_sqlite3', 'sqlite3', 'ctypes', '_sandbox_importer', 'importlib', 'marshal', 'xml', 'pyexpat', '_elementtree', '_queue', 'ipaddress', 'shlex', 'contextvars', '_contextvars', 'annotationlib', 'reprlib', 'textwrap', 'heapq', "
    "'bisect', 'unicodedata', 'base64', 'binascii', 'secrets', 'fnmatch', 'keyword', 'opcode', 'linecache', "
    "'_colorize', 'zipimport', '_sha1', '_sha256', '_sha512', '_sha3', '_md5', '_blake2', '_pickle', 'pickle', '_bz2', "
    "'_lzma', '_symtable', '__future__', '_compat_pickle', 'copyreg', 'locale', '_strptime', 'posixpath', "
    "'genericpath', 'stat', 'os', 'posix', 'cmath', 'math', '_string', '_ast_unparse', 'codeop', 'token', "
    "'_sandbox_files', '_sandbox_files_os', '_sandbox_files_io', '_sandbox_streams', "
    "'atexit', 'errno', 'gc', '_pylong', '_opcode_metadata', '_py_abc', '_sitebuiltins', "
    # asyncio and what it imports (the zygote imports it once it is idle, so a session may start with it):
    # `threading`, `socket`, `subprocess` and `signal` are the sandbox's own stand-ins.
    "'asyncio', '_sandbox_async', 'concurrent', 'logging', 'threading', 'socket', 'subprocess', 'signal']"
)
GROUPS["class_walks"] = {
    "subclasses_modules_are_all_sandbox_stdlib": (
        "import asyncio, json, re, math, cmath, collections, itertools, functools, operator, datetime, time, string, textwrap, heapq, bisect, statistics, random, dataclasses, typing, enum, decimal, fractions, copy, difflib, unicodedata, base64, hashlib, hmac, csv, io, pprint, contextlib, abc, types, sys, struct, zlib, binascii, array, uuid, secrets, graphlib, numbers, inspect, traceback, ast, tokenize, keyword, warnings, weakref, calendar, html, ipaddress, shlex, fnmatch, contextvars\n"
        "allowed = set("
        + SANDBOX_TOP_MODULES
        + ")\nseen, todo, modules = set(), [object], set()\nwhile todo:\n    c = todo.pop()\n    if id(c) in seen:\n        continue\n    seen.add(id(c))\n    try:\n        todo.extend(type.__subclasses__(c))\n    except TypeError:\n        pass\n    m = getattr(c, '__module__', None)\n    modules.add(m if isinstance(m, str) else 'builtins')\nsorted(m for m in modules if m.split('.')[0] not in allowed)",
        value("[]"),
    ),
    # With asyncio imported, the only classes bearing a gadget's name are the sandbox's stand-ins (whose every
    # use is refused: see the network and processes groups) and asyncio's process wrapper (made only by
    # create_subprocess_*, refused).
    "no_host_gadget_classes": (
        "import asyncio\nnames = set()\ntodo = [object]\nwhile todo:\n    c = todo.pop()\n    if c.__name__ in names:\n        continue\n    names.add(c.__name__)\n    try:\n        todo.extend(type.__subclasses__(c))\n    except TypeError:\n        pass\nsorted(names & {'FileIO', 'Popen', '_wrap_close', 'socket', 'SSLContext', 'CDLL', 'Process', 'Thread', 'mmap', 'Pdb'})",
        # FileIO: the sandbox filesystem's own raw file (over the session's files, docs/files.md).
        value("['FileIO', 'Popen', 'Process', 'Thread', 'socket']"),
    ),
    "catch_warnings_module_builtins": (
        "import warnings\ncw = [c for c in object.__subclasses__() if c.__name__ == 'catch_warnings'] or [warnings.catch_warnings]\ncw[0]()._module.__builtins__['__import__']('_posixsubprocess')",
        refused("_posixsubprocess", "starts processes"),
    ),
    "os_wrap_close": ("import os\nos._wrap_close", error("AttributeError", "module 'os' has no attribute '_wrap_close'")),
    "builtin_types_are_immutable": ("int.leak = 1", error("TypeError", "cannot set 'leak' attribute of immutable type 'int'")),
    "object_is_immutable": ("type.__setattr__(object, 'leak', 1)", error("TypeError", "immutable type 'object'")),
}

# Frames and tracebacks: the frame chain ends at the submitted cell; tool stand-ins hold only the native door
# `invoke` and the tool's name, never the host callable.
INVOKE = "invoke = echo.__globals__['__invoke']\n"
GROUPS["frames"] = {
    "getframe_chain": (
        "import sys\nf, chain = sys._getframe(), []\nwhile f is not None:\n    chain.append((f.f_code.co_filename, f.f_code.co_name))\n    f = f.f_back\nchain",
        value("[('<cell 1>', '<module>')]"),
    ),
    "getframe_beyond_the_cell": ("import sys\nsys._getframe(1)", error("ValueError", "call stack is not deep enough")),
    "current_frames_of_other_threads": ("import sys\nsys._current_frames()", value("{}")),
    "generator_frame_f_back": (
        "def g():\n    yield 1\nit = g()\nnext(it)\nit.gi_frame.f_back, it.gi_frame.f_code.co_filename",
        value("(None, '<cell 1>')"),
    ),
    "f_builtins_open": (
        "import sys\nsys._getframe().f_builtins['open']('/etc/passwd')",
        error("FileNotFoundError", HOST_FILE_NOT_FOUND),
    ),
    "tool_error_traceback_frames": (
        "try:\n    fail()\nexcept KeyError as e:\n    tb = e.__traceback__\nframes = []\nwhile tb:\n    f = tb.tb_frame\n    tool = f.f_code.co_filename == '<tools>'\n    frames.append((f.f_code.co_filename, sorted(f.f_globals) if tool else None, sorted(type(v).__name__ for v in f.f_locals.values()) if tool else None))\n    tb = tb.tb_next\nframes",
        value(
            "[('<cell 1>', None, None), ('<tools>', ['__Default', '__builtins__', '__invoke', '__name__', '_tool_Default', '_tool_call', 'fail'], [])]"
        ),
        {"tools": True},
    ),
    "tool_closure_contents": (
        "echo.__closure__, type(echo.__globals__['__invoke']).__name__",
        value("(None, 'builtin_function_or_method')"),
        {"tools": True},
    ),
    "tool_globals": (
        "sorted(echo.__globals__)",
        value("['__Default', '__builtins__', '__invoke', '__name__', '_tool_Default', '_tool_call', 'echo']"),
        {"tools": True},
    ),
    "tool_has_no_wrapped_host_callable": (
        "echo.__dict__, getattr(echo, '__wrapped__', None), getattr(echo, '__self__', None)",
        value("({}, None, None)"),
        {"tools": True},
    ),
    "invoke_native_attributes": (
        INVOKE + "(invoke.__name__, invoke.__self__, invoke.__module__, [a for a in dir(invoke) if not a.startswith('__')])",
        value("('invoke', None, None, [])"),
        {"tools": True},
    ),
    "invoke_is_only_the_tool_door": (
        INVOKE + "assert invoke('echo', ('x',), {}) == 'x'\ninvoke('not_a_tool', (), {})",
        error("RuntimeError", "tool 'not_a_tool' is not available"),
        {"tools": True},
    ),
}

# Code objects: crafted bytecode is never run (the VM does not verify it); compiler-made code is harmless. The
# built-in types are shared by every VM of the process, so these run in an interpreter that is not the first.
NO_CODE_CRAFTING = "code objects cannot be created or modified in the sandbox"
GROUPS["code_objects"] = {
    "replace_co_code": (
        "c = compile('1', 'x', 'eval').replace(co_code=b'\\xff\\xff\\xff\\xff')\neval(c)",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "replace_co_names": ("eval(compile('x', 'x', 'eval').replace(co_names=()))", error("PermissionError", NO_CODE_CRAFTING)),
    # The one change allowed is what types.coroutine makes: CO_ITERABLE_COROUTINE (0x100) on a generator's code.
    "replace_flags_of_a_plain_function": (
        "(lambda: 1).__code__.replace(co_flags=0x100)",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "replace_flags_beyond_iterable_coroutine": (
        "def g():\n    yield\nc = g.__code__\nc.replace(co_flags=c.co_flags | 0x100 | 0x80)",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "replace_flags_with_another_field": (
        "def g():\n    yield\nc = g.__code__\nc.replace(co_flags=c.co_flags | 0x100, co_code=b'')",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "replace_flags_clearing_generator": (
        "def g():\n    yield\nc = g.__code__\nc.replace(co_flags=(c.co_flags & ~0x20) | 0x100)",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "types_coroutine_marks_a_generator": (
        "import types\n@types.coroutine\ndef g():\n    yield 1\nbool(g.__code__.co_flags & 0x100), list(g())",
        value("(True, [1])"),
    ),
    "code_type_constructor": (
        "import types\nc = compile('1', 'x', 'eval')\ntypes.CodeType(0, 0, 0, 0, 1, 0, c.co_code, (), (), (), 'x', 'x', 'x', 1, b'', b'', (), ())",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "code_class_call": (
        "c = compile('1', 'x', 'eval')\ntype(c)(0, 0, 0, 0, 1, 0, b'', (), (), (), 'x', 'x', 'x', 1, b'', b'', (), ())",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "copy_replace_code": (
        "import copy\ncopy.replace(compile('x', 'x', 'eval'), co_names=())",
        error("TypeError", "replace() does not support code objects"),
    ),
    "function_type_with_crafted_code": (
        "import types\ntypes.FunctionType((lambda: 1).__code__.replace(co_code=b'\\x00\\x00'), {})()",
        error("PermissionError", NO_CODE_CRAFTING),
    ),
    "marshal_loads": (
        "import marshal\nmarshal.loads(b'\\xe3' + bytes(40))",
        error("ValueError", "marshal does not load or dump code objects"),
    ),
    "dunder_code_swap_is_harmless": ("def f():\n    return 1\nf.__code__ = (lambda: 2).__code__\nf()", value("2")),
    "dunder_code_free_var_mismatch": (
        "def outer():\n    x = 1\n    def inner():\n        return x\n    return inner\ndef f():\n    return 1\nf.__code__ = outer().__code__\nf()",
        error("ValueError", "requires a code object with 0 free vars, not 1"),
    ),
    "function_type_empty_builtins": (
        "import types\ntypes.FunctionType((lambda: open('/etc/passwd')).__code__, {'__builtins__': {}})()",
        error("NameError", "name 'open' is not defined"),
    ),
}
# Run before a group's attempts, in the same child.
PREAMBLES = {"code_objects": "RustInterpreter().execute('1')"}

# Format-string attribute walks reach only sandbox objects.
GROUPS["format_strings"] = {
    "init_globals": (
        "'{0.__class__.__init__.__globals__}'.format(1)",
        error("AttributeError", "'wrapper_descriptor' object has no attribute '__globals__'"),
    ),
    "tool_closure_walk": ("'{0.__globals__[__invoke]}'.format(echo)", value("'<built-in function invoke>'"), {"tools": True}),
    "format_map_missing": (
        "class M(dict):\n    def __missing__(self, key):\n        return key\n'{a.__class__.__mro__}'.format_map(M())",
        value("\"(<class 'str'>, <class 'object'>)\""),
    ),
    "formatter_get_field_builtins": (
        "import string\ndef f():\n    pass\nfield = string.Formatter().get_field('0.__globals__[__builtins__]', (f,), {})[0]\nfield.open('/etc/passwd')",
        error("FileNotFoundError", HOST_FILE_NOT_FOUND),
    ),
}

# Giant single allocations fail at once with MemoryError (or a size error), the session intact.
MEM = {"memory_limit": 128 << 20}
GROUPS["giant_allocations"] = {
    "str_repeat": ("'a' * 10**12", error("MemoryError"), MEM),
    "bytes": ("bytes(10**12)", error("MemoryError"), MEM),
    "bytearray": ("bytearray(10**12)", error("MemoryError"), MEM),
    "list_repeat": ("[None] * 2**62", error("MemoryError"), MEM),
    "tuple_repeat": ("(1,) * 10**12", error("MemoryError"), MEM),
    "ljust": ("'a'.ljust(10**12)", error("MemoryError"), MEM),
    "big_shift": ("1 << (1 << 40)", error("MemoryError"), MEM),
    "join": ("'x'.join(['a'] * 10**12)", error("MemoryError"), MEM),
    "percent_width": ("'%*s' % (10**12, 'a')", error("OverflowError"), MEM),
    "format_width": ("'{:>1000000000000}'.format('a')", error("ValueError", "Too many decimal digits"), MEM),
    "int_digits": ("int('9' * 100001)", error("ValueError", "Exceeds the limit"), MEM),
    "growth_loop": ("x = []\nwhile True:\n    x.append('a' * 10**6)", error("MemoryError", "memory limit"), MEM),
}

# Deep nesting, in the source and at run time: SyntaxError or RecursionError, never a crash.
DEEP_LIST = "x = []\nfor _ in range(10**6):\n    x = [x]\n"
# Nesting that runs the VM thread's native stack out in every build: aarch64's frames are smaller, and so are the
# `dist` wheel's (fat LTO inlines more), and a million levels of JSON encoding or of islice fit in its stack there.
STACK_DEEP = 4 * 10**6
GROUPS["deep_nesting"] = {
    "parentheses_in_source": ("EVAL:'(' * 100000", syntax("too many nested parentheses")),
    "closed_parentheses_in_source": ("EVAL:'(' * 100000 + '1' + ')' * 100000", syntax("too many nested parentheses")),
    "list_display_in_source": ("EVAL:'[' * 100000 + ']' * 100000", syntax("too many nested parentheses")),
    "dict_literal_in_source": ("EVAL:'{1: ' * 100000 + '1' + '}' * 100000", syntax("too many nested parentheses")),
    "unary_chain_in_source": ("EVAL:'-' * 100000 + '1'", syntax()),
    "binop_chain_in_source": ("EVAL:'1' + '+1' * 100000", syntax()),
    "not_chain_in_source": ("EVAL:'not ' * 100000 + '1'", syntax()),
    "eval_nested_list": ("eval('[' * 100000 + ']' * 100000)", error("SyntaxError", "too many nested parentheses")),
    "exec_nested_lambda": (
        "exec('lambda: ' * 100000 + '1')",
        error("RecursionError", "maximum recursion depth exceeded during compilation"),
    ),
    "compare_deep_lists": (
        DEEP_LIST + "y = []\nfor _ in range(10**6):\n    y = [y]\nx == y",
        error("RecursionError", "maximum recursion depth exceeded"),
    ),
    "json_dumps_deep": (
        DEEP_LIST.replace("10**6", str(STACK_DEEP)) + "import json\njson.dumps(x)",
        error("RecursionError", "maximum recursion depth exceeded"),
    ),
    "json_loads_deep": (
        "import json\njson.loads('[' * 10**6 + ']' * 10**6)",
        error("RecursionError", "maximum recursion depth exceeded"),
    ),
    "deepcopy_deep": (DEEP_LIST + "import copy\ncopy.deepcopy(x)", error("RecursionError", "maximum recursion depth exceeded")),
    "pickle_deep": (DEEP_LIST + "import _pickle\n_pickle.dumps(x)", error("RecursionError", "maximum recursion depth exceeded")),
    "regex_deep": (
        "import re\nre.compile('(' * 100000 + ')' * 100000)",
        error("RecursionError", "maximum recursion depth exceeded"),
    ),
    "recursion_via_repr_at_max_limit": (
        "import sys\nsys.setrecursionlimit(10**9)\nclass A:\n    def __repr__(self):\n        return repr(self)\nrepr(A())",
        error("RecursionError", "maximum recursion depth exceeded"),
    ),
    "recursion_via_eval_at_max_limit": (
        "import sys\nsys.setrecursionlimit(10**9)\ndef f():\n    return eval('f()')\nf()",
        error("RecursionError", "maximum recursion depth exceeded"),
    ),
    "free_deep_structures": (DEEP_LIST + "d = {}\nfor _ in range(10**6):\n    d = {1: d}\ndel x, d\n'freed'", value("'freed'")),
}

# Huge outputs are cut at max_output_chars with a note saying how much was dropped.
CAP = {"max_output_chars": 1000}


def truncated(dropped: int) -> Callable[[dict[str, Any]], None]:
    def check(r: dict[str, Any]) -> None:
        note = f"[output truncated: {dropped} of {dropped + 1000} characters were dropped here"
        assert note in r["value"], f"no truncation note saying {dropped} were dropped: {r['value'][-300:]}"
        assert len(r["value"]) < 1400, f"the output was not capped: {len(r['value'])} characters"

    return check


def shorter_than(text: str, limit: int) -> None:
    assert len(text) < limit, f"{len(text)} characters, expected fewer than {limit}"


GROUPS["huge_output"] = {
    "one_huge_print": ("print('x' * 10**7)", Expect("value", extra=truncated(10**7 + 1 - 1000)), CAP),
    "many_prints": ("for _ in range(10**5):\n    print('abcdefghi')", Expect("value", extra=truncated(10**6 - 1000)), CAP),
    "stderr_writelines": (
        "import sys\nsys.stderr.writelines('y' * 100 for _ in range(10**5))",
        Expect("value", extra=truncated(10**7 - 1000)),
        CAP,
    ),
    "stdout_write_loop": (
        "import sys\nfor _ in range(10**5):\n    sys.stdout.write('z' * 10)",
        Expect("value", extra=truncated(10**6 - 1000)),
        CAP,
    ),
    "print_after_error_is_capped_too": (
        "print('e' * 10**6)\n1 / 0",
        error(
            "ZeroDivisionError",
            "[output truncated: 999001 of 1000001 characters were dropped here",
            extra=lambda r: shorter_than(r["message"], 3000),
        ),
        CAP,
    ),
}

# Tools misuse: arguments and results cross as plain data; sandbox dunders never run on the host side; a
# re-entrant execute is refused.
T = {"tools": True}
GROUPS["tools"] = {
    "call_tool_non_str_name": ("call_tool(123)", error("TypeError", "call_tool() takes the tool's name as a str, got int"), T),
    "call_tool_with_stand_in": ("call_tool(echo)", error("TypeError", "got function"), T),
    "call_tool_evil_str_subclass_name": (
        "class N(str):\n    def __eq__(self, other):\n        return True\n    def __hash__(self):\n        return 0\ncall_tool(N('nope'))",
        error("RuntimeError", "tool 'nope' is not available"),
        T,
    ),
    "evil_str_argument": (
        "class S(str):\n    def __eq__(self, o):\n        raise RuntimeError('eq')\n    def __hash__(self):\n        raise RuntimeError('hash')\n    def __reduce__(self):\n        raise RuntimeError('reduce')\necho(S('abc'))",
        value("'abc'", seen=[["str", "'abc'"]]),
        T,
    ),
    "colliding_keys_argument": (
        "class K(str):\n    def __hash__(self):\n        return 1\n    def __eq__(self, o):\n        return True\necho({K('a'): 1, K('b'): 2})",
        value("{'a': 2}", seen=[["dict", "{'a': 2}"]]),
        T,
    ),
    "reduce_object_argument": (
        "class R:\n    def __reduce__(self):\n        return (print, ('pwned',))\necho(R())",
        error("TypeError", "argument 'x' has type 'R', which cannot leave the sandbox", seen=[]),
        T,
    ),
    "int_subclass_with_evil_dunders": (
        "class I(int):\n    def __index__(self):\n        raise RuntimeError\n    def __int__(self):\n        raise RuntimeError\n    def __hash__(self):\n        while True:\n            pass\necho(I(5))",
        value("5", seen=[["int", "5"]]),
        T,
    ),
    "list_subclass_with_looping_dunders": (
        "class L(list):\n    def __iter__(self):\n        while True:\n            pass\n    def __len__(self):\n        while True:\n            pass\necho(L([1, 2]))",
        value("[1, 2]", seen=[["list", "[1, 2]"]]),
        T,
    ),
    "self_referencing_argument": (
        "a = []\na.append(a)\necho(a)",
        error("TypeError", "is nested more than 256 levels deep, or contains itself", seen=[]),
        T,
    ),
    "self_referencing_result": ("selfref()", error("TypeError", "is nested more than 256 levels deep, or contains itself"), T),
    # A host generator never enters the sandbox: it streams plain items through a sandbox-side iterator.
    "generator_result": (
        "g = gen()\n(type(g).__name__, g.__slots__, list(g))",
        value("('Stream', ('_tool', '_id', '_done'), [1])"),
        T,
    ),
    # A host object of no known kind crosses as its str() (as in dspy's interpreter): text, never the object.
    "host_module_result": ("m = leak_module()\n(type(m).__name__, m.startswith('<module'))", value("('str', True)"), T),
    "reentrant_execute": ("reenter()", error("RuntimeError", "cannot re-enter the sandbox that is calling it"), T),
    "host_exception_keeps_only_type_and_message": (
        "try:\n    fail()\nexcept KeyError as e:\n    r = (type(e).__name__, e.args, e.__cause__, e.__context__)\nr",
        value("('KeyError', (\"tool 'fail' failed with KeyError: 'missing'\",), None, None)"),
        T,
    ),
}

# Threads and signals: the "threads" of the _thread stand-in run inline, under the time limit; nothing
# reaches the host's signals or its main thread.
GROUPS["threads"] = {
    "start_new_thread_runs_inline": ("import _thread\nout = []\n_thread.start_new_thread(out.append, (1,))\nout", value("[1]")),
    "start_new_thread_spin_is_stopped": (
        "import _thread\ndef spin():\n    while True:\n        pass\n_thread.start_new_thread(spin, ())",
        error("TimeoutError", within=1.0),
        {"timeout": 1.0},
    ),
    "interrupt_main_stays_inside": ("import _thread\n_thread.interrupt_main()", error("KeyboardInterrupt")),
    "raise_keyboard_interrupt_stays_inside": ("raise KeyboardInterrupt", error("KeyboardInterrupt")),
    "thread_exit": ("import _thread\n_thread.exit()", error("SystemExit")),
    "stack_size": ("import _thread\n_thread.stack_size(2**40)", error("RuntimeError", "not supported")),
}

# Tracing, profiling, monitoring and audit hooks: they see only sandbox frames, run nothing after an accepted
# SUBMIT, are stopped by the time limit, and cannot lift the host's own audit hook.
GROUPS["tracing"] = {
    "settrace_after_submit": (
        "import sys\ndef tr(frame, event, arg):\n    if event in ('return', 'exception'):\n        record('trace ' + event)\n    return tr\ndef f():\n    SUBMIT('done')\nsys.settrace(tr)\nf()",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "setprofile_after_submit": (
        "import sys\ndef pr(frame, event, arg):\n    if event != 'c_call':\n        record('profile ' + event)\nsys.setprofile(pr)\nSUBMIT('done')",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "monitoring_after_submit": (
        "import sys\nM = sys.monitoring\nM.use_tool_id(3, 'probe')\nM.register_callback(3, M.events.PY_RETURN, lambda *a: record('PY_RETURN'))\nM.register_callback(3, M.events.PY_UNWIND, lambda *a: record('PY_UNWIND'))\nM.set_events(3, M.events.PY_RETURN | M.events.PY_UNWIND)\ndef f():\n    SUBMIT('done')\nf()",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "settrace_spin_is_stopped": (
        "import sys\ndef tr(frame, event, arg):\n    while True:\n        pass\nsys.settrace(tr)\ndef f():\n    return 1\nf()",
        error("TimeoutError", within=1.0),
        {"timeout": 1.0},
    ),
    "audit_hook_cannot_lift_sleep_bound": (
        "import sys\nsys.addaudithook(lambda event, args: None)\ndel sys.modules['time']\nimport time\ntime.sleep(3600)",
        error("TimeoutError", "time.sleep(3600) would run past the time limit"),
    ),
    "raising_audit_hook_does_not_break_the_host": (
        "import sys\ndef hook(event, args):\n    raise RuntimeError('blocked ' + event)\nsys.addaudithook(hook)\nimport time\ntime.sleep(0.01)\n'slept'",
        value("'slept'"),
    ),
}

# Finalizers: nothing runs after an accepted SUBMIT, so no finalizer may call a host tool after it.
GROUPS["finalizers"] = {
    "del_after_submit": (
        "class D:\n    def __del__(self):\n        record('__del__ after SUBMIT')\ndef f():\n    d = D()\n    SUBMIT('done')\nf()",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "generator_finally_after_submit": (
        "def g():\n    try:\n        yield 1\n    finally:\n        record('finally after SUBMIT')\ndef f():\n    it = g()\n    next(it)\n    SUBMIT('done')\nf()",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "weakref_finalize_after_submit": (
        "import weakref\nclass O:\n    pass\ndef f():\n    o = O()\n    weakref.finalize(o, record, 'finalize after SUBMIT')\n    SUBMIT('done')\nf()",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "unraisable_hook_after_submit": (
        "import sys\nsys.unraisablehook = lambda u: record('unraisablehook after SUBMIT')\nclass D:\n    def __del__(self):\n        raise ValueError\ndef f():\n    d = D()\n    SUBMIT('done')\nf()",
        value("FinalOutput({'output': 'done'})", recorded=[]),
        T,
    ),
    "looping_del_is_stopped": (
        "class D:\n    def __del__(self):\n        while True:\n            pass\ndef f():\n    d = D()\n    return 5\nf()",
        error("TimeoutError", within=1.0),
        {"timeout": 1.0},
    ),
}

# Exceptions and values with hostile dunders: the host formats them without hanging, and conversion reads the
# data itself, never the dunders.
LOOP = "        while True:\n            pass\n"
GROUPS["hostile_dunders"] = {
    "exception_str_loops": (
        "class E(Exception):\n    def __str__(self):\n" + LOOP + "raise E('x')",
        error("E", within=1.0),
        {"timeout": 1.0},
    ),
    "exception_str_raises": (
        "class E(Exception):\n    def __str__(self):\n        raise RuntimeError('bad')\nraise E('x')",
        error("E"),
    ),
    "exception_str_returns_non_str": ("class E(Exception):\n    def __str__(self):\n        return 42\nraise E('x')", error("E")),
    "exception_str_calls_submit": (
        "class E(Exception):\n    def __str__(self):\n        SUBMIT('from __str__')\n        return 'msg'\nraise E()",
        error("E"),
    ),
    "exception_arg_str_loops": (
        "class A:\n    def __str__(self):\n" + LOOP + "raise ValueError(A())",
        error("ValueError", within=1.0),
        {"timeout": 1.0},
    ),
    "looping_len_iter_hash_index_in_result": (
        "class L(list):\n    def __len__(self):\n"
        + LOOP
        + "    def __iter__(self):\n"
        + LOOP
        + "class I(int):\n    def __index__(self):\n"
        + LOOP
        + "    def __hash__(self):\n"
        + LOOP
        + "[L([1]), I(7)]",
        value("[[1], 7]"),
    ),
    "looping_dunders_in_submit": (
        "class L(list):\n    def __len__(self):\n" + LOOP + "    def __iter__(self):\n" + LOOP + "SUBMIT(L([1]))",
        value("FinalOutput({'output': [1]})"),
    ),
    "looping_eq_keys_in_result": (
        "class K(str):\n    def __eq__(self, o):\n" + LOOP + "    def __hash__(self):\n        return 7\n{K('a'): 1}",
        value("{'a': 1}"),
    ),
}

# Groups whose children run scripts of their own (host-side mutation between runs, several interpreters).
CUSTOM_SCRIPTS: dict[str, str] = {}
CUSTOM: dict[str, dict[str, Expect]] = {}

# Environment: nothing of the host's environment, paths or identity is visible, and writes stay inside.
CUSTOM_SCRIPTS["environment"] = r"""
os.environ["DSPY_RI_CANARY"] = "canary-4f1d9"
def one(name, code, **kw):
    interp = RustInterpreter(timeout=5.0)
    results[name] = run(interp, code, **kw)
    results[name]["after"] = run(interp, "6 * 7").get("value")
    interp.shutdown()
one("os_environ_and_getenv", "import os\nos.environ, os.getenv('HOME'), os.getenv('PATH', 'default'), os.getenv('DSPY_RI_CANARY')")
one("sys_flags", "import sys\nsys.flags.ignore_environment, sys.flags.isolated, sys.flags.safe_path, sys.flags.no_user_site")
one("os_putenv", "import os\nos.putenv('X', '1')")
one("no_host_secret_or_path_anywhere", "import sys, os, time\ndump = repr({k: getattr(sys, k, None) for k in dir(sys)}) + repr(os.environ) + repr(time.tzname) + repr(sys.argv) + os.getcwd()\n[s for s in ('canary-4f1d9', host_cwd, host_home, host_exe) if s in dump]",
    variables={"host_cwd": os.getcwd(), "host_home": os.path.expanduser("~"), "host_exe": sys.executable})
one("environ_write_stays_inside", "import os\nos.environ['DSPY_RI_PROBE'] = 'set'\nos.environ['PATH'] = '/evil'\n'written'")
results["environ_write_stays_inside"]["host"] = [os.environ.get("DSPY_RI_PROBE"), os.environ.get("PATH") == "/evil"]
"""


def host_environment_unchanged(host: list[Any]) -> None:
    assert host == [None, False], f"the host's environment changed: {host}"


CUSTOM["environment"] = {
    "os_environ_and_getenv": value("({}, None, 'default', None)"),
    "sys_flags": value("(1, 1, True, 1)"),
    "os_putenv": error("PermissionError", "os.putenv() is not available in the sandbox"),
    "no_host_secret_or_path_anywhere": value("[]"),
    "environ_write_stays_inside": value("'written'", extra=lambda r: host_environment_unchanged(r["host"])),
}

# Builtins and module tampering stay in their session, and the host's own reading of that session (values,
# errors, SUBMIT) is not fooled by it.
CUSTOM_SCRIPTS["tampering"] = r"""
def both(name, interp, code):
    results[name] = run(interp, code)
    results[name]["after"] = run(interp, "6 * 7").get("value")
a, b = RustInterpreter(timeout=5.0), RustInterpreter(timeout=5.0)
both("len_same_session", a, "import builtins\nbuiltins.len = lambda x: 99\nlen([1])")
both("len_new_interpreter", b, "len([1])")
both("len_new_interpreter_created_after", RustInterpreter(), "len([1, 2])")
run(a, "import builtins\nbuiltins.repr = lambda x: 'LIE'\nbuiltins.str = lambda x='': 'LIE'\nbuiltins.isinstance = lambda *a: False\nbuiltins.type = lambda *a: int\nbuiltins.__import__ = lambda *a, **k: 'hijacked'\nbuiltins.print = lambda *a, **k: None")
both("host_value_after_tampering", a, "[1, 'two', (3.0,)]")
both("host_error_after_tampering", a, "1 / 0")
both("host_submit_after_tampering", a, "SUBMIT({'k': [1, 2]})")
both("import_hijack_stays_in_session", b, "import json\njson.dumps([1])")
run(b, "import ast\nast.AST.leak = 1")
both("native_type_mutation_stays_in_session", RustInterpreter(), "import ast\nhasattr(ast.AST, 'leak')")
run(b, "import sys\nsys.modules['json'] = 'hacked'")
both("sys_modules_stays_in_session", RustInterpreter(), "import json\ntype(json).__name__")
run(b, "import math\nmath.pi = 3")
both("module_attribute_stays_in_session", RustInterpreter(), "import math\nmath.pi > 3.14")
"""
CUSTOM["tampering"] = {
    "len_same_session": value("99"),
    "len_new_interpreter": value("1"),
    "len_new_interpreter_created_after": value("2"),
    "host_value_after_tampering": value("[1, 'two', (3.0,)]"),
    "host_error_after_tampering": error("ZeroDivisionError", "division by zero"),
    "host_submit_after_tampering": value("FinalOutput({'output': {'k': [1, 2]}})"),
    "import_hijack_stays_in_session": value("'[1]'"),
    "native_type_mutation_stays_in_session": value("False"),
    "sys_modules_stays_in_session": value("'module'"),
    "module_attribute_stays_in_session": value("True"),
}

# Tools that change on the host between runs: a removed tool stays revoked, even through kept references and
# a tampered stand-in factory; host values with evil dunders cross as plain data.
CUSTOM_SCRIPTS["tool_lifecycle"] = r"""
interp = RustInterpreter(tools=dict(TOOLS), timeout=5.0)
def step(name, code, **kw):
    results[name] = run(interp, code, **kw)
    results[name]["after"] = run(interp, "6 * 7").get("value")
run(interp, "kept = echo")
del interp.tools["echo"]
step("removed_tool_through_kept_reference", "kept('x')")
step("removed_tool_through_call_tool", "call_tool('echo', 'x')")
run(interp, "record.__globals__['_tool_call'] = lambda name, args, kwargs: 'forged'")
interp.tools["later"] = lambda: "later ok"
step("tampered_factory_tool_still_calls_host", "kept_later = later\nlater()")
del interp.tools["later"]
step("tampered_factory_removed_tool_revoked", "kept_later()")

class EvilInt(int):
    def __index__(self): raise RuntimeError("host __index__ ran")
    def __int__(self): raise RuntimeError("host __int__ ran")
class EvilList(list):
    def __iter__(self): raise RuntimeError("host __iter__ ran")
    def __len__(self): raise RuntimeError("host __len__ ran")
class EvilDict(dict):
    def __iter__(self): raise RuntimeError("host __iter__ ran")
    def items(self): raise RuntimeError("host items ran")
class EvilStr(str):
    def __hash__(self): raise RuntimeError("host __hash__ ran")
    def __eq__(self, other): raise RuntimeError("host __eq__ ran")
step("host_variables_with_evil_dunders", "(v, type(v[0]).__name__, type(v[1]).__name__, type(v[2]).__name__, type(v[3]).__name__)",
     variables={"v": (EvilInt(5), EvilList([1, 2]), EvilDict({"k": EvilStr("s")}), EvilStr("t"))})
"""
CUSTOM["tool_lifecycle"] = {
    "removed_tool_through_kept_reference": error("RuntimeError", "tool 'echo' is not available"),
    "removed_tool_through_call_tool": error("RuntimeError", "tool 'echo' is not available"),
    "tampered_factory_tool_still_calls_host": value("'later ok'"),
    "tampered_factory_removed_tool_revoked": error("RuntimeError", "tool 'later' is not available"),
    "host_variables_with_evil_dunders": value("((5, [1, 2], {'k': 's'}, 't'), 'int', 'list', 'dict', 'str')"),
}


def _group_script(group: str) -> str:
    if group in CUSTOM_SCRIPTS:
        return HELPERS + CUSTOM_SCRIPTS[group]
    lines = [HELPERS, PREAMBLES.get(group, "")]
    for name, entry in GROUPS[group].items():
        code, options = entry[0], (entry[2] if len(entry) > 2 else {})
        lines.append(f"results[{name!r}] = attempt({code!r}, **{options!r})")
    return "\n".join(lines)


def _expected(group: str, name: str) -> Expect:
    return CUSTOM[group][name] if group in CUSTOM else GROUPS[group][name][1]


ATTEMPTS = [(g, n) for g in GROUPS for n in GROUPS[g]] + [(g, n) for g in CUSTOM for n in CUSTOM[g]]
# Attempts whose outcome needs native speed: under qemu-user, filling 128 MiB a megabyte at a time, nesting lists
# four million deep (then dumping them as JSON or pickling them), or a list and a dict a million deep each,
# outlasts the 5 s time limit, which stops it first.
AT_NATIVE_SPEED = {
    ("giant_allocations", "growth_loop"),
    ("deep_nesting", "json_dumps_deep"),
    ("deep_nesting", "pickle_deep"),
    ("deep_nesting", "free_deep_structures"),
}


@pytest.fixture(scope="module")
def group_results():
    cache: dict[str, Any] = {}

    def get(group: str) -> dict[str, Any]:
        if group not in cache:
            try:
                cache[group] = run_isolated(_group_script(group), timeout=300)
            except AssertionError as failure:
                cache[group] = f"the child process running the {group!r} attempts crashed: {failure}"
            except subprocess.TimeoutExpired:
                cache[group] = f"the child process running the {group!r} attempts hung for more than 300 s"
        if isinstance(cache[group], str):
            pytest.fail(cache[group], pytrace=False)
        return cache[group]

    return get


@pytest.mark.parametrize(
    ("group", "name"),
    [pytest.param(g, n, marks=[pytest.mark.native_process] if (g, n) in AT_NATIVE_SPEED else []) for g, n in ATTEMPTS],
    ids=[f"{g}-{n}" for g, n in ATTEMPTS],
)
def test_attempt(group_results, group, name):
    results = group_results(group)
    assert name in results, f"the {group!r} child did not report {name!r}"
    _expected(group, name).check(f"{group}/{name}", results[name])


# ---------------------------------------------------------------------------------------------------------
# attempts that may crash or block the host: a child each
# ---------------------------------------------------------------------------------------------------------

# Crafted bytecode through code.replace(): LOAD_FAST_BORROW of an argument, then STORE_FAST over it, then
# RETURN_VALUE of the dangling borrowed reference -- a use-after-free inside the host process. Tried in the
# process's first interpreter and in a later one (the built-in types are shared by all of them).
CRAFTED_BYTECODE = "def f(a):\n    return a\nf.__code__ = f.__code__.replace(co_code=bytes([0x80, 0, 0x56, 0, 0x52, 0, 0x70, 0, 0x23, 0]), co_consts=(None,), co_stacksize=4)\nr = f(bytearray(b'A' * 64))\njunk = [bytearray(b'B' * 64) for _ in range(1000)]\nlen(r)"


@pytest.mark.parametrize("earlier_interpreters", [0, 2], ids=["first_interpreter", "later_interpreter"])
def test_crafted_bytecode_is_refused_and_never_runs(earlier_interpreters):
    script = (
        HELPERS
        + f"""
for _ in range({earlier_interpreters}):
    RustInterpreter().execute("compile('1', 'x', 'eval').co_name")
results['run'] = attempt({CRAFTED_BYTECODE!r})
"""
    )
    results = run_child(script, timeout=HANG)
    error("PermissionError", NO_CODE_CRAFTING).check("crafted_bytecode", results["run"])


# Deep chains of native iterators recurse in Rust (through `__next__` slots, or through method wrappers).
ITERATOR_CHAINS = {
    "map": "x = iter([1])\nfor _ in range(10**6):\n    x = map(abs, x)\nnext(x)",
    "filter": "x = iter([1])\nfor _ in range(10**6):\n    x = filter(None, x)\nnext(x)",
    "zip": "x = iter([1])\nfor _ in range(10**6):\n    x = zip(x)\nr = next(x)",
    "enumerate": "x = iter([1])\nfor _ in range(10**6):\n    x = enumerate(x)\nr = next(x)",
    "islice": f"import itertools\nx = iter([1])\nfor _ in range({STACK_DEEP}):\n    x = itertools.islice(x, 1)\nr = next(x)",
    "callable_iterator": "x = iter([1])\nfor _ in range(10**6):\n    x = iter(x.__next__, None)\nr = next(x)",
}


@pytest.mark.parametrize("code", ITERATOR_CHAINS.values(), ids=ITERATOR_CHAINS.keys())
def test_deep_iterator_chain_is_recursion_error_not_a_crash(code):
    results = run_child(HELPERS + f"results['run'] = attempt({code!r}, timeout=20.0)", timeout=60)
    error("RecursionError", "maximum recursion depth exceeded").check("iterator_chain", results["run"])


def test_repr_of_a_million_deep_list_is_recursion_error():
    code = DEEP_LIST + "r = repr(x)"
    results = run_child(HELPERS + f"results['run'] = attempt({code!r}, timeout=3.0, abandon_after=1.0)", timeout=60)
    error("RecursionError", "maximum recursion depth exceeded", within=3.0).check("deep_repr", results["run"])


# The host converts results and tool arguments, and calls repr() for a trailing expression that is not plain
# data. None of that may block the host: the run ends within timeout + abandon_after, and no other host thread
# is stalled for longer than the time limit (the GIL is not held across sandbox code or unbounded conversions).
# A repr that never returns is stopped by the time limit, and as in CPython's REPL a repr that fails is the
# cell's error (not a '<A object>' stand-in).
KEY_LOOPS = "class K:\n    def __repr__(self):\n        while True:\n            pass\n"
FAST = {"timeout": 1.0, "abandon_after": 1.0, "memory_limit": 64 << 20}
HOST_SIDE = {
    "trailing_repr_loops": (
        "class A:\n    def __repr__(self):\n        while True:\n            pass\nA()",
        error("TimeoutError", "time limit"),
        FAST,
    ),
    "trailing_repr_loops_after_print": (
        "class A:\n    def __repr__(self):\n        while True:\n            pass\nprint('hi')\nA()",
        error("TimeoutError", "time limit", "Output printed before the error:\nhi"),
        FAST,
    ),
    "trailing_dict_with_looping_key_repr": (KEY_LOOPS + "{K(): 1}", error("TimeoutError", "time limit"), FAST),
    "submit_with_looping_key_repr": (
        KEY_LOOPS + "SUBMIT({K(): 1})",
        error("TypeError", "has type 'K', which cannot leave the sandbox"),
        FAST,
    ),
    "tool_argument_with_looping_key_repr": (
        KEY_LOOPS + "echo({K(): 1})",
        error("TypeError", "has type 'K', which cannot leave the sandbox"),
        FAST,
    ),
    "trailing_exponential_dag": ("x = []\nfor _ in range(40):\n    x = [x, x]\nx", value("'<list object>'"), FAST),
    "trailing_million_deep_list": (DEEP_LIST + "x", value("'<list object>'"), {"timeout": 3.0, "abandon_after": 1.0}),
    "trailing_huge_int_over_the_memory_limit": ("n = 1 << 31\n1 << n", error("MemoryError"), FAST),
}


@pytest.mark.parametrize(("code", "expected", "options"), HOST_SIDE.values(), ids=HOST_SIDE.keys())
def test_host_side_conversion_and_repr_never_block_the_host(code, expected, options):
    script = (
        HELPERS
        + f"""
heart = Heartbeat()
result, stall = heart.longest_stall_during(lambda: attempt({code!r}, tools=True, **{options!r}))
result["longest_stall"] = stall
results["run"] = result
"""
    )
    results = run_child(script, timeout=HANG)
    run = results["run"]
    limit = options["timeout"] + options["abandon_after"] + SLACK
    assert run["seconds"] < limit, f"the run took {run['seconds']:.1f} s, more than {limit} s: {str(run)[:300]}"
    stall = run["longest_stall"]
    assert stall < options["timeout"], f"the host's other threads were blocked for {stall:.2f} s at a stretch"
    expected.check("host_side", run)


# memory_limit bounds what the host process really holds: memory grabbed between two polls of the limit, or
# in one native request far past it, is refused at once rather than noticed later (or never).
MEMORY_GRABS = {
    "quick_allocations_then_touch": [
        "xs = [bytearray(1 << 28) for _ in range(4)]\nlen(xs)",
        "for b in xs:\n    b[::4096] = b'x' * len(range(0, len(b), 4096))\n'touched'",
    ],
    "single_request_far_past_the_limit": ["x = [None] * (4 * 10**8)\nlen(x)"],
}


@pytest.mark.parametrize("steps", MEMORY_GRABS.values(), ids=MEMORY_GRABS.keys())
def test_memory_limit_bounds_what_the_host_holds(steps):
    script = (
        HELPERS
        + f"""
import resource
def rss_mb():
    return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') >> 20
interp = RustInterpreter(timeout=10.0, abandon_after=5.0, memory_limit=64 << 20)
start, peak_start = rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
results["steps"] = [run(interp, code) for code in {steps!r}]
results["growth_mb"] = max(rss_mb() - start, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10) - peak_start)
"""
    )
    results = run_child(script, timeout=120)
    error("MemoryError", alive=False).check("memory_grab", results["steps"][0])
    assert results["growth_mb"] < 512, f"the host process grew by {results['growth_mb']} MB with memory_limit=64 MiB"


# shutdown() finalises the VM: finalizers and atexit callbacks run there, and must neither hang the host nor
# reach the host's tools.
SHUTDOWN = {
    "atexit_spins": "import atexit\ndef spin():\n    while True:\n        pass\natexit.register(spin)\n1",
    "global_del_spins": "class D:\n    def __del__(self):\n        while True:\n            pass\nd = D()\n1",
    "atexit_calls_a_tool": "import atexit\natexit.register(record, 'atexit at shutdown')\n1",
    "global_del_calls_a_tool": "class D:\n    def __del__(self):\n        record('__del__ at shutdown')\nd = D()\n1",
}


@pytest.mark.parametrize("code", SHUTDOWN.values(), ids=SHUTDOWN.keys())
def test_shutdown_ends_promptly_and_runs_no_tool(code):
    script = (
        HELPERS
        + f"""
interp = RustInterpreter(tools=dict(TOOLS), timeout=1.0, abandon_after=1.0)
results["run"] = run(interp, {code!r})
started = time.perf_counter()
interp.shutdown()
results["shutdown_seconds"] = time.perf_counter() - started
results["recorded"] = list(RECORDED)
"""
    )
    results = run_child(script, timeout=HANG)
    assert results["run"]["value"] == "1"
    assert results["shutdown_seconds"] < 1.0 + 1.0 + SLACK, f"shutdown() took {results['shutdown_seconds']:.1f} s"
    assert results["recorded"] == [], f"tools ran during shutdown: {results['recorded']}"
