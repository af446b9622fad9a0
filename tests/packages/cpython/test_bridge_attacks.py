"""Attacks on a session given the host's real numpy and pandas (``packages=["numpy", "pandas"]``), which run in the
session process's own CPython behind the bridge (src/sandbox/cpython/, src/sandbox/machinery/_sandbox_cpython.py).

What is attacked, layer by layer:

* the bridge: library attributes that are CPython's stdlib modules (``np.lib._npyio_impl.os``,
  ``pd.io.common.os``, ``np.ctypeslib.ctypes``), function ``__globals__``/``__code__``, ``__subclasses__`` walks
  from mirrored classes, ``__reduce_ex__`` of arrays and frames, the bridge's own module (``_sandbox_cpython``:
  replaced in ``sys.modules``, its ``BRIDGED`` set widened, its ``to_pickle`` swapped to feed CPython's
  restricted unpickler, its primitives called with forged or odd arguments), exceptions and tracebacks coming
  back from CPython, deep recursion and ``BaseException`` subclasses through callbacks;
* the routing of CPython's files, network and libraries: host paths and URLs handed to ``pd.read_csv``,
  ``np.loadtxt``, ``np.fromfile``, ``pd.read_html``, ``np.load``, writes by ``np.save``/``df.to_csv``/
  ``plt.savefig`` to host paths, ``np.ctypeslib.load_library``;
* the confinement of the session process, reached with arbitrary CPython code (``pd.read_pickle`` of a pickle the
  sandbox wrote runs it; ``df.eval('@sys...', level=-3)`` reaches CPython's ``sys`` too): host files by every
  system call route (``io.FileIO``, ``os.open``, raw ``openat``/``openat2`` through ctypes), programs, sockets,
  signals and other processes' memory, libraries, the host's environment (also in C's ``environ``), a forked
  child outliving ``shutdown()``, garbage frames on the session's socket to the host, ignoring the stop, memory
  bombs and wild ``as_strided`` reads;
* what the session can learn of the host or of other sessions anyway: the host's hostname and kernel, host paths,
  and another interpreter's tool declarations left in the zygote's memory, which every session inherits.

Five tests failed when written, each an escape its comment describes (first in the file): the host's hostname
and kernel through numpy's and pandas' version reports, a host file through a link in a compiled package's
folder, host paths, and another interpreter's tool declarations in a session's memory.

Each test asserts the defence: the host secret (a world-readable file the test makes, ``/etc/hostname``, an
environment variable set before the interpreter) never shows in a result or output, a host target path is never
created, no connection reaches a host listener, no library is mapped, no process outlives the interpreter, and the
host and interpreter keep working (``execute("1+1") == 2``).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from dspy_rust_interpreter import CodeExecutionError

PACKAGES = ["numpy", "pandas"]

# Defined in a session to run CPython code in the session process: pandas' `read_pickle` unpickles with CPython's
# unrestricted pickle, so a pickle the sandbox wrote calls CPython's `eval`. Everything the CPython code can do is
# then bounded only by the session process's confinement, which is what the tests using it attack.
CPYTHON_PRELUDE = """
import pickle as _pickle
import pandas as _pd

class _Run:
    def __init__(self, src, values):
        self.src, self.values = src, values
    def __reduce__(self):
        return (eval, ("exec(src, g) or g.get('out')", {"src": self.src, "g": dict(self.values)}))

def cpython(src, **values):
    with open("/tmp/_cpython_payload.pkl", "wb") as file:
        _pickle.dump(_Run(src, values), file)
    return _pd.read_pickle("/tmp/_cpython_payload.pkl")
"""

# CPython code: `attempt(name, f)` records whether `f()` was refused; `out` is what was recorded.
ATTEMPT = """
import ctypes, errno, os
out = {}
def attempt(name, f):
    try:
        out[name] = ("done", repr(f())[:4000])
    except BaseException as error:
        out[name] = ("refused", type(error).__name__, getattr(error, "errno", None), str(error)[:300])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def syscall(number, *args):
    result = libc.syscall(number, *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result
"""


def refused(outcomes: dict) -> None:
    """Every attempt of `outcomes` (from `ATTEMPT`) was refused, by the system (an OSError), not by a slip of the
    attempt's own code."""
    print(outcomes)
    done = {name: outcome for name, outcome in outcomes.items() if outcome[0] != "refused"}
    assert not done, f"attempts that went through: {done}"
    slips = {name: outcome for name, outcome in outcomes.items() if outcome[1] in ("NameError", "SyntaxError")}
    assert not slips, slips


def still_works(interp) -> None:
    assert interp.execute("1+1") == 2


@pytest.fixture
def host_secret():
    """A world-readable file in a world-traversable folder of the host, so that only the sandbox stops a session's
    user id from reading it, and its content."""
    folder = tempfile.mkdtemp(prefix="dri-attack-")
    os.chmod(folder, 0o755)
    content = "host-secret-" + secrets.token_hex(12)
    path = Path(folder) / "secret.txt"
    path.write_text(content + "\n")
    os.chmod(path, 0o644)
    yield path, content
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def host_target():
    """A path in the host's /tmp, which anyone may write (and which the sandbox has too): neither it nor a name
    beginning with it may appear on the host."""
    target = Path(tempfile.gettempdir()) / f"dri-attack-{secrets.token_hex(8)}"
    yield target
    for made in target.parent.glob(target.name + "*"):
        if made.is_dir() and not made.is_symlink():
            shutil.rmtree(made, ignore_errors=True)
        else:
            made.unlink(missing_ok=True)


def written(target: Path) -> list[str]:
    """What appeared on the host at `target` or beside it with its name as prefix."""
    return sorted(str(made) for made in target.parent.glob(target.name + "*"))


@pytest.fixture
def victim():
    """A world-writable file in the host's /tmp that a session's user id could change were it not confined."""
    path = Path(tempfile.gettempdir()) / f"dri-attack-victim-{secrets.token_hex(8)}"
    path.write_text("victim content\n")
    os.chmod(path, 0o666)
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture
def hostname() -> str:
    try:
        return Path("/etc/hostname").read_text().strip() or socket.gethostname()
    except OSError:
        return socket.gethostname()


@pytest.fixture
def with_cpython(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute(CPYTHON_PRELUDE)
    return interp


class Listener:
    """A TCP listener on the host's loopback that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.accepted: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            connection.settimeout(0.5)
            try:
                self.accepted.append(connection.recv(200))
            except OSError:
                self.accepted.append(b"")
            connection.close()

    def close(self) -> list[bytes]:
        time.sleep(0.3)
        self._stop.set()
        self._thread.join()
        self.server.close()
        return self.accepted


@pytest.fixture
def listener():
    listening = Listener()
    yield listening
    listening.close()


# --- What a session learns of the host or of other sessions (these failed when written: see each test) --------


def test_numpy_show_runtime_does_not_tell_the_hosts_hostname(make_interp, hostname):
    # ESCAPE when written: the zygote ran `platform.uname()` before it was confined (importing the packages), so
    # CPython's `platform` cache holds the host's real uname: `np.show_runtime()` prints the host's hostname
    # (`/etc/hostname`'s content) and kernel, where the sandbox's own `platform.uname()` says node='sandbox'.
    interp = make_interp(packages=PACKAGES, timeout=60)
    printed = interp.execute(
        "import io, contextlib, platform\nimport numpy as np\nbuffer = io.StringIO()\n"
        "with contextlib.redirect_stdout(buffer):\n    np.show_runtime()\n"
        "(buffer.getvalue(), platform.node())"
    )
    text, sandbox_node = printed
    assert sandbox_node != hostname, "the sandbox's own platform hides the hostname"
    assert "numpy_version" in text, text
    assert f"node={hostname!r}" not in text, f"np.show_runtime() printed the host's hostname: {text[:600]}"
    still_works(interp)


def test_a_link_in_a_compiled_packages_folder_does_not_read_a_host_file(make_interp, host_secret, tmp_path, monkeypatch):
    # ESCAPE when written (host file read): a package CPython serves has its data files read by the zygote, before
    # it is confined and as the host's user (`cpython_side._read_folder`), with plain `open()`, which follows a
    # symbolic link anywhere; a session then reads the link's target through CPython's `open` (pandas'
    # `read_csv`). The sandbox's own package files follow a link only to a file inside the package's folder
    # (docs/security.md, `sandbox::zygote_data::preread`; `_packages._inside` for the host's side). Here the
    # distribution is a made-up one with a compiled module (so CPython serves it) and one link out of its folder,
    # as an editable install or a distribution's packaging (Debian links data files to /etc and /usr/share) has.
    path, content = host_secret
    site = tmp_path / "site"
    package = site / "linkpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_speedups.abi3.so").write_text("not a real extension module\n")
    (package / "data.csv").symlink_to(path)
    info = site / "linkpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: linkpkg\nVersion: 1.0\n")
    (info / "RECORD").write_text(
        "linkpkg/__init__.py,,\nlinkpkg/_speedups.abi3.so,,\nlinkpkg/data.csv,,\n"
        "linkpkg-1.0.dist-info/METADATA,,\nlinkpkg-1.0.dist-info/RECORD,,\n"
    )
    monkeypatch.syspath_prepend(str(site))
    interp = make_interp(packages=["linkpkg", "pandas"], timeout=60)
    link = str(package / "data.csv")
    shown = []
    for code in (
        f"import pandas as pd\npd.read_csv({link!r}, header=None).iloc[0, 0]",
        "import linkpkg, os\nopen(os.path.join(os.path.dirname(linkpkg.__file__), 'data.csv')).read()",
        "import importlib.resources\nimportlib.resources.files('linkpkg').joinpath('data.csv').read_text()",
    ):
        try:
            shown.append(repr(interp.execute(code)))
        except CodeExecutionError as error:
            shown.append(str(error))
    assert content not in "\n".join(shown), f"a host file outside the package was read: {shown}"
    still_works(interp)


def test_pandas_show_versions_does_not_tell_the_hosts_kernel(make_interp):
    # ESCAPE when written (host information, low): pandas' system information is CPython's cached
    # `platform.uname()` of the zygote: the host's kernel release and build, which the sandbox's own `platform`
    # blanks (release='', version='').
    interp = make_interp(packages=PACKAGES, timeout=60)
    info = interp.execute("import pandas as pd\npd.util._print_versions._get_sys_info()")
    printed = interp.execute(
        "import io, contextlib\nbuffer = io.StringIO()\n"
        "with contextlib.redirect_stdout(buffer):\n    pd.show_versions()\nbuffer.getvalue()"
    )
    release, version = os.uname().release, os.uname().version
    for shown in (str(info), printed):
        assert release not in shown and version not in shown, f"the host's kernel shows: {shown[:800]}"
    still_works(interp)


def test_compiled_packages_show_no_host_path(make_interp):
    # ESCAPE when written (host information, low): a pure-Python package shows `/packages/...`, never a host path
    # (tests/packages/test_packages.py); a package CPython serves shows the host's real `__file__`, `__path__`,
    # and data paths (the host's home and Python installation).
    interp = make_interp(packages=PACKAGES, timeout=60)
    shown = interp.execute(
        "import numpy as np, pandas as pd\n[str(np.__file__), str(pd.__file__), str(list(np.__path__)), str(np.lib.__file__)]"
    )
    prefixes = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.__file__))}
    leaked = [text for text in shown if any(prefix in text for prefix in prefixes) or "site-packages" in text]
    assert not leaked, f"host paths reach the sandbox: {leaked}"
    still_works(interp)


MEMORY_SCAN = r"""
import ctypes, socket
libc = ctypes.CDLL(None)
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.write.restype = ctypes.c_ssize_t
libc.sbrk.argtypes = [ctypes.c_ssize_t]
libc.sbrk.restype = ctypes.c_void_p
probe, drain = socket.socketpair()
def mapped(address):
    # write(2) answers EFAULT for an address not mapped, where reading it would crash.
    if libc.write(probe.fileno(), address, 1) == 1:
        drain.recv(1)
        return True
    return False
found = []
page, window = 4096, 64 << 20
starts = set()
for base in [int(b) for b in BASES] + [libc.sbrk(0)]:
    low = (base & ~(window - 1)) - window
    starts.update((low, low + window, low + 2 * window))
for start in sorted(starts):
    for address in range(start, start + window, page):
        if mapped(address):
            data = ctypes.string_at(address, page + 128 if mapped(address + page) else page)
            # The needles come in halves, so that the whole of one is never made in this session's memory.
            for index, (head, tail) in enumerate(HALVES):
                at = data.find(head)
                while at >= 0:
                    if data[at + len(head):at + len(head) + len(tail)] == tail:
                        found.append(index)
                    at = data.find(head, at + 1)
out = sorted(set(found))
"""


def test_another_interpreters_tools_are_not_in_a_sessions_memory(make_interp):
    # ESCAPE when written (cross-session): the zygote prepares each `Spawn`'s tool stand-ins in its own VM before
    # forking, so what earlier interpreters of the same package set declared (tool names and docstrings) is left in
    # the memory every later session is forked with. Through CPython (ctypes, which numpy's ctypeslib imported in
    # the zygote), a session reads its own memory and finds them.
    token = secrets.token_hex(8)
    name = f"tool_{token}"
    doc = f"private-docstring-{token}"

    def tool(x: int) -> int:
        return x

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    owner = make_interp(packages=PACKAGES, timeout=60, tools={name: tool})
    assert owner.execute(f"{name}(3)") == 3
    other = make_interp(packages=PACKAGES, timeout=60)
    other.execute(CPYTHON_PRELUDE)
    halves = [(text[: len(text) // 2].encode(), text[len(text) // 2 :].encode()) for text in (name, doc)]
    other.execute(f"HALVES = {halves!r}\nBASES = [id(object()), id('x' * 100), id([0] * 1000), id(_pd)]")
    found = other.execute(f"cpython({MEMORY_SCAN!r}, BASES=BASES, HALVES=HALVES)")
    # Control: the scan finds them in the interpreter that declared them.
    owner.execute(CPYTHON_PRELUDE)
    owner.execute(f"HALVES = {halves!r}\nBASES = [id(object()), id('x' * 100), id([0] * 1000), id(_pd)]")
    assert owner.execute(f"cpython({MEMORY_SCAN!r}, BASES=BASES, HALVES=HALVES)") == [0, 1]
    leaked = [(name, doc)[index] for index in found]
    assert leaked == [], f"another interpreter's tool declarations are in this session's memory: {leaked}"
    still_works(other)


# --- The bridge ----------------------------------------------------------------------------------------------


def test_library_attributes_that_are_stdlib_modules_are_the_sandboxs_own(make_interp, host_target, monkeypatch):
    monkeypatch.setenv("DRI_ATTACK_ENV_SECRET", "env-secret-" + secrets.token_hex(8))
    interp = make_interp(packages=PACKAGES, timeout=60)
    same = interp.execute(
        "import os, sys, numpy as np, pandas as pd\n"
        "[np.lib._npyio_impl.os is os, pd.io.common.os is os, np._core._methods.os is os,\n"
        " pd.util._print_versions.os is os, pd.util._print_versions.sys is sys,\n"
        " np.lib._utils_impl.platform is __import__('platform')]"
    )
    assert same == [True] * 6
    # `np.ctypeslib.ctypes` is the sandbox's ctypes: it loads nothing.
    with pytest.raises(CodeExecutionError):
        interp.execute("np.ctypeslib.ctypes.CDLL('libc.so.6')")
    for code in (
        f"pd.io.common.os.system('touch {host_target}')",
        f"np.lib._npyio_impl.os.open('{host_target}', os.O_CREAT | os.O_WRONLY)",
        "pd.io.common.os.execv('/bin/sh', ['sh', '-c', 'id'])",
    ):
        try:
            interp.execute(code)
        except CodeExecutionError:
            pass
    environment = interp.execute("sorted(pd.io.common.os.environ.items())")
    assert "DRI_ATTACK_ENV_SECRET" not in str(environment) and "env-secret-" not in str(environment)
    assert not host_target.exists()
    still_works(interp)


def test_function_internals_and_frames_are_not_handed_out(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute("import numpy as np, pandas as pd")
    for expression in (
        "np.mean._implementation.__globals__",
        "np.mean._implementation.__globals__['__builtins__']",
        "pd.read_csv.__globals__",
        "pd.read_csv.__code__",
        "pd.read_csv.__builtins__",
        "pd.Series.apply.__globals__['__builtins__']['__import__']",
        "pd.DataFrame({'a': [1]}).iterrows().gi_frame",
        "pd.DataFrame({'a': [1]}).iterrows().gi_code",
    ):
        with pytest.raises(CodeExecutionError) as raised:
            interp.execute(expression)
        assert raised.value.error_type in ("TypeError", "AttributeError", "KeyError"), (expression, raised.value)
    # A package function's `__init__` is the mirror's, in the sandbox: its globals are the bridge's sandbox end.
    assert interp.execute("pd.DataFrame.__init__.__globals__['__name__']") == "_sandbox_cpython"
    still_works(interp)


def test_subclass_walks_from_mirrors_reach_only_the_sandboxs_classes(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    result = interp.execute(
        "import numpy as np, pandas as pd\n"
        "import _sandbox_cpython as bridge\n"
        "mro = type(np.array([1])).__mro__\n"
        "ref = np.ndarray._cpy_type\n"
        "base = bridge._getattr(ref, '__base__')\n"
        "cpython_mro = bridge._getattr(ref, '__mro__')\n"
        "subclasses = bridge._getattr(ref, '__subclasses__')()\n"
        "(base is object, cpython_mro[-1] is object, [c.__module__ for c in mro],\n"
        " sorted({c.__module__.partition('.')[0] for c in subclasses}))"
    )
    base_is_object, mro_ends_in_object, mro_modules, subclass_modules = result
    # CPython's `object` crosses as the sandbox's own: no walk from it reaches a CPython class.
    assert base_is_object and mro_ends_in_object
    assert mro_modules[0] == "numpy" and set(mro_modules[1:]) <= {"_sandbox_cpython", "builtins"}, mro_modules
    assert set(subclass_modules) <= {"numpy", "pandas"}, subclass_modules
    # Whatever the sandbox's own `object.__subclasses__()` finds, it is the sandbox's (its `subprocess` and file
    # classes refuse); CPython's `os._wrap_close` or `subprocess.Popen` would be `_cpy_type` mirrors.
    mirrors_of_stdlib = interp.execute(
        "[c.__module__ for c in object.__subclasses__() if '_cpy_type' in vars(c) "
        "and c.__module__.partition('.')[0] not in ('numpy', 'pandas', 'dateutil', 'pytz', 'tzdata', 'six')]"
    )
    assert mirrors_of_stdlib == []
    still_works(interp)


def test_reduce_ex_of_arrays_and_frames_names_only_package_callables(make_interp, host_target):
    # A mirror's `__reduce__`/`__reduce_ex__` are the sandbox's own (copyreg's, over the mirror class and its
    # handle, which cannot be pickled); CPython's, reached by name, give numpy's and pandas' reconstructors.
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute(
        "import numpy as np, pandas as pd, pickle, _sandbox_cpython as bridge\n"
        "a = np.array([1, 2])\ndf = pd.DataFrame({'x': [1]})\n"
        "cpython_reduced = [bridge._getattr(a._cpy, '__reduce_ex__')(2), bridge._getattr(df._cpy, '__reduce__')(),\n"
        "                   bridge._getattr(np.dtype('f8')._cpy, '__reduce__')()]"
    )
    kinds = interp.execute(
        "def kind(f):\n"
        "    if isinstance(f, (bridge.Foreign, bridge.ForeignType)):\n"
        "        return ('handle', repr(f))\n"
        "    return (f.__module__, f.__qualname__)\n"
        "[kind(r[0]) for r in cpython_reduced] + [kind(a.__reduce_ex__(2)[0]), kind(df.__reduce__()[0])]"
    )
    # Only handles (which hold nothing but the packages' objects) and the sandbox's own copyreg.
    assert all(kind[0] in ("handle", "copyreg") for kind in kinds), kinds
    assert "_reconstruct" in kinds[0][1], kinds
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("pickle.dumps(a)")
    assert raised.value.error_type == "TypeError"
    # The reconstructors rebuild what they are for; with other arguments they refuse.
    assert interp.execute("f, args = cpython_reduced[0][:2]\nlist(f(*args).shape)") == [0]
    for code in (
        f"f('posix', 'system', ('touch {host_target}',))",
        f"f(__import__('os').system, ('touch {host_target}',), b'b')",
        f"cpython_reduced[1][0](__import__('os').system, 'touch {host_target}')",
    ):
        with pytest.raises(CodeExecutionError):
            interp.execute(code)
    assert written(host_target) == []
    still_works(interp)


def test_the_bridges_own_module_cannot_be_turned(make_interp, host_target):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute("import sys, numpy as np, _sandbox_cpython as bridge")
    # Forged handles: a CPython object's handle cannot be made, copied or pickled; the primitives check theirs.
    for code in (
        "type(np.ndarray._cpy_type)()",
        "object.__new__(type(np.ndarray._cpy_type))",
        "__import__('copy').copy(np.ndarray._cpy_type)",
        "__import__('pickle').dumps(np.ndarray._cpy_type)",
        "bridge._getattr(5, '__class__')",
        "bridge._getattr(None, '__globals__')",
        "bridge._call(np.ndarray, (), {})",
        "bridge._method(np.ndarray._cpy_type, '__subclasses__', 1, 2)",
        "bridge._apply(np.ndarray._cpy_type, 'no such op', ())",
        "bridge._module('_dspy_cpython_side')",
        "np.add(object.__new__(np.ndarray), 1)",
    ):
        with pytest.raises(CodeExecutionError) as raised:
            interp.execute(code)
        assert raised.value.error_type in ("TypeError", "AttributeError", "KeyError", "ModuleNotFoundError", "ValueError"), (
            code,
            raised.value,
        )
    # The standard library's modules CPython would hand out are the sandbox's own.
    for name in ("os", "subprocess", "ctypes", "posix", "builtins", "socket"):
        assert interp.execute(f"bridge._module({name!r}) is __import__({name!r})"), name
    # Widening the set of names CPython serves does not make CPython's standard library importable.
    interp.execute("bridge.BRIDGED = bridge.BRIDGED | {'subprocess', 'ctypes', 'socket', 'posix', 'os'}")
    for code in (
        f"import subprocess\nsubprocess.run(['touch', '{host_target}'])",
        f"import posix\nposix.system('touch {host_target}')",
        "import ctypes\nctypes.CDLL('libc.so.6')",
        "import socket\nsocket.create_connection(('127.0.0.1', 9))",
    ):
        with pytest.raises(CodeExecutionError):
            interp.execute(code)
    # Replacing the module in `sys.modules` changes nothing for the bridge, which holds its own.
    assert interp.execute("sys.modules['_sandbox_cpython'] = type(sys)('_sandbox_cpython')\nint(np.array([1, 2]).sum())") == 3
    assert not host_target.exists()
    still_works(interp)


TAMPERED_PICKLE = """
import numpy as np
bridge_globals = type(np.array([1])).__mro__[-2].__init__.__globals__
# getattr(getattr(getattr(collections.namedtuple, '__globals__'), 'get')('__builtins__'), 'get')('eval')
E1 = "cbuiltins\\ngetattr\\n(ccollections\\nnamedtuple\\nS'__globals__'\\ntR"
E2 = "cbuiltins\\ngetattr\\n(" + E1 + "S'get'\\ntR"
E3 = E2 + "(S'__builtins__'\\ntR"
E4 = "cbuiltins\\ngetattr\\n(" + E3 + "S'get'\\ntR"
EVAL = E4 + "(S'eval'\\ntR"

def through_cpython(code):
    payload = (EVAL + "(V" + code + "\\ntR.").encode("raw_unicode_escape")
    original = bridge_globals["to_pickle"]
    bridge_globals["to_pickle"] = lambda obj: (payload, [])
    class Carrier:
        pass
    try:
        return repr(np.asarray([Carrier()], dtype=np.object_).tolist())
    except BaseException as error:
        return type(error).__name__ + ": " + str(error)
    finally:
        bridge_globals["to_pickle"] = original
"""


def test_tampering_with_the_bridges_pickle_reaches_only_the_confined_process(make_interp, host_secret):
    # The sandbox end's module is reachable (`Foreign.__init__.__globals__`) and writable: its `to_pickle` swapped
    # for one that answers any bytes feeds CPython's `_Unpickler`, whose allowed `builtins.getattr` walks from
    # `collections.namedtuple.__globals__` to CPython's `eval` (the restriction is no boundary; see the report).
    # What that CPython code reaches is the confined process's: no host file.
    path, content = host_secret
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute(TAMPERED_PICKLE)
    read = interp.execute(f"through_cpython({f'__import__(chr(105) + chr(111)).FileIO({str(path)!r}).read()'!r})")
    hostname = interp.execute("through_cpython('__import__(\"socket\").gethostname()')")
    assert content not in read, read
    assert read.startswith(("PermissionError", "UnpicklingError", "TypeError")), read
    assert read.startswith("PermissionError") or "may not send" in read, read
    assert socket.gethostname() not in hostname.replace("Error", ""), hostname
    still_works(interp)


def test_exceptions_from_cpython_carry_no_cpython_objects(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    result = interp.execute(
        "import numpy as np, pandas as pd\n"
        "errors = []\n"
        "for f in (lambda: pd.to_datetime('not a date at all'), lambda: pd.DataFrame({'a': [1]}).loc['nope'],\n"
        "          lambda: np.zeros(2).reshape(3), lambda: pd.Series([1]).apply(lambda x: 1 / 0)):\n"
        "    try:\n"
        "        f()\n"
        "    except Exception as error:\n"
        "        errors.append(error)\n"
        "seen = []\n"
        "for error in errors:\n"
        "    tb = error.__traceback__\n"
        "    while tb is not None:\n"
        "        seen.append((tb.tb_frame.f_code.co_filename, tb.tb_frame.f_globals.get('__name__')))\n"
        "        tb = tb.tb_next\n"
        "    for value in list(vars(error).values()) + list(error.args) + [error.__cause__, error.__context__]:\n"
        "        seen.append(('value', type(value).__module__))\n"
        "([type(e).__name__ for e in errors], seen)"
    )
    names, seen = result
    assert names == ["DateParseError", "KeyError", "ValueError", "ZeroDivisionError"], names
    # Frames are the sandbox's (its cells and its bridge module); values are plain or the sandbox's.
    for filename, module in seen:
        if filename == "value":
            assert module in ("builtins", "NoneType") or module.startswith("pandas"), seen
        else:
            assert filename.startswith("<"), seen
            assert module in ("__main__", "_sandbox_cpython", None), seen
    still_works(interp)


def test_deep_recursion_through_callbacks_and_nesting_is_an_error(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute("import sys, numpy as np, pandas as pd\nkept = 41")
    recursion = (
        "def rec(x):\n    return pd.Series([x]).apply(rec).iloc[0]\n"
        "try:\n    rec(1)\n    r = 'no error'\nexcept RecursionError as e:\n    r = 'RecursionError'\nr"
    )
    assert interp.execute(recursion) == "RecursionError"
    # With the sandbox's limit raised, CPython's C stack is the bound: an error or a crash of the session, which is
    # restored; never the host.
    try:
        outcome = interp.execute("sys.setrecursionlimit(10**6)\n" + recursion)
        assert outcome == "RecursionError"
    except CodeExecutionError as error:
        assert error.error_type in ("RecursionError", "SystemError", "MemoryError"), error
    for code in (
        "l = []\nl.append(l)\nnp.array(l, dtype=np.object_)",
        "d = {}\nfor i in range(100000):\n    d = {'k': d}\npd.Series([d])",
        "pd.io.json.ujson_loads('[' * 100000 + ']' * 100000)",
    ):
        with pytest.raises(CodeExecutionError) as raised:
            interp.execute(code)
        assert raised.value.error_type in ("RecursionError", "ValueError"), (code, raised.value)
    assert interp.execute("kept + 1") == 42
    still_works(interp)


def test_callbacks_raising_base_exceptions_come_back_as_themselves(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute(
        "import pandas as pd\nclass Mine(BaseException):\n    pass\n"
        "def through(error):\n"
        "    def raiser(x):\n        raise error\n"
        "    try:\n        pd.Series([1]).apply(raiser)\n    except BaseException as caught:\n"
        "        return (caught is error, type(caught).__name__, caught.args)\n"
        "    return 'not raised'"
    )
    for make, name in (
        ("SystemExit(3)", "SystemExit"),
        ("KeyboardInterrupt('mine')", "KeyboardInterrupt"),
        ("GeneratorExit('g')", "GeneratorExit"),
        ("Mine('payload', [1, 2])", "Mine"),
    ):
        same, caught, _args = interp.execute(f"through({make})")
        assert same and caught == name, (make, caught)
    # Uncaught, it ends the cell as itself; the session goes on.
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("pd.Series([1]).apply(lambda x: (_ for _ in ()).throw(SystemExit(0)))")
    assert raised.value.error_type == "SystemExit"
    # CPython raising KeyboardInterrupt of its own (no stop was asked) is not taken for the run's stop.
    interp.execute(CPYTHON_PRELUDE + "\nkept = 41")
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("cpython('raise KeyboardInterrupt')")
    assert raised.value.error_type == "KeyboardInterrupt", raised.value
    assert interp.execute("kept + 1") == 42
    still_works(interp)


# --- Files, network and libraries reached through the packages ------------------------------------------------


def test_host_paths_given_to_the_packages_are_the_sandboxs(make_interp, host_secret):
    path, content = host_secret
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute("import numpy as np, pandas as pd")
    attempts = {
        "read_csv_passwd": "pd.read_csv('/etc/passwd')",
        "read_csv_secret": f"pd.read_csv({str(path)!r})",
        "read_table_secret": f"pd.read_table({str(path)!r}, header=None)",
        "read_json_secret": f"pd.read_json({str(path)!r})",
        "read_html_secret": f"pd.read_html({str(path)!r})",
        "loadtxt_environ": "np.loadtxt('/proc/self/environ')",
        "loadtxt_secret": f"np.loadtxt({str(path)!r}, dtype=str)",
        "genfromtxt_secret": f"np.genfromtxt({str(path)!r}, dtype=str)",
        "fromfile_hostname": "np.fromfile('/etc/hostname', dtype=np.uint8)",
        "fromfile_secret": f"np.fromfile({str(path)!r}, dtype=np.uint8)",
        "load_secret": f"np.load({str(path)!r}, allow_pickle=True)",
        "memmap_secret": f"np.memmap({str(path)!r}, mode='r')",
        "datasource_secret": f"np.lib.npyio.DataSource(None).open({str(path)!r}).read()",
        "read_fwf_secret": f"pd.read_fwf({str(path)!r})",
        "read_csv_proc": "pd.read_csv('/proc/self/maps', header=None)",
    }
    texts = []
    for name, code in attempts.items():
        try:
            texts.append(repr(interp.execute(code)))
        except CodeExecutionError as error:
            texts.append(str(error))
            assert error.error_type in (
                "FileNotFoundError",
                "PermissionError",
                "OSError",
                "ImportError",
                "ModuleNotFoundError",
                "TypeError",
                "ValueError",
                "EmptyDataError",
            ), (name, error)
        else:
            # Only an empty read of the sandbox's own (missing) file would be acceptable; none is expected.
            pytest.fail(f"{name} returned {texts[-1][:300]}")
    joined = "\n".join(texts)
    print(joined)
    assert content not in joined
    assert "root:x:0:0" not in joined
    still_works(interp)


def test_writes_to_host_paths_land_in_the_sandbox(make_interp, host_target):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute("import os, numpy as np, pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})")
    writes = {
        "np.save": f"np.save({str(host_target) + '.npy'!r}, np.zeros(2))",
        "np.savetxt": f"np.savetxt({str(host_target)!r}, np.zeros(2))",
        "tofile": f"np.zeros(2).tofile({str(host_target) + '.bin'!r})",
        "to_csv": f"df.to_csv({str(host_target) + '.csv'!r})",
        "to_json": f"df.to_json({str(host_target) + '.json'!r})",
        "to_pickle": f"df.to_pickle({str(host_target) + '.pkl'!r})",
        "to_html": f"df.to_html({str(host_target) + '.html'!r})",
        "savez": f"np.savez({str(host_target) + '.npz'!r}, a=np.zeros(2))",
    }
    in_sandbox = {}
    for name, code in writes.items():
        try:
            interp.execute(code)
        except CodeExecutionError as error:
            in_sandbox[name] = error.error_type
        else:
            in_sandbox[name] = interp.execute(f"sorted(n for n in os.listdir('/tmp') if n.startswith({host_target.name!r}))")
    print(in_sandbox)
    assert written(host_target) == [], "host files written"
    # Most writes succeed, in the sandbox's own filesystem.
    assert sum(1 for v in in_sandbox.values() if isinstance(v, list) and v) >= 5, in_sandbox
    still_works(interp)


def test_urls_reach_no_network(make_interp, listener):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute("import numpy as np, pandas as pd")
    url = f"http://127.0.0.1:{listener.port}"
    for code in (
        f"pd.read_csv('{url}/x.csv')",
        f"pd.read_json('{url}/x.json')",
        f"pd.read_table('ftp://127.0.0.1:{listener.port}/x')",
        f"pd.read_html('{url}/x.html')",
        f"pd.io.common.urlopen('{url}/w')",
        f"np.lib.npyio.DataSource(None).open('{url}/y')",
        f"np.loadtxt('{url}/z')",
        f"pd.read_pickle('{url}/p.pkl')",
    ):
        with pytest.raises(CodeExecutionError):
            interp.execute(code)
    assert listener.close() == [], "a connection reached the host's listener"
    still_works(interp)


def test_matplotlib_savefig_writes_to_the_sandbox(make_interp, host_target):
    pytest.importorskip("matplotlib")
    interp = make_interp(packages=[*PACKAGES, "matplotlib"], timeout=60)
    saved = interp.execute(
        "import os, matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "plt.plot([1, 2], [3, 4])\n"
        f"plt.savefig({str(host_target) + '.png'!r})\nos.path.getsize({str(host_target) + '.png'!r}) > 0"
    )
    assert saved is True
    assert written(host_target) == []
    still_works(interp)


def test_no_library_is_loaded(with_cpython):
    candidates = [
        path
        for path in (
            "/usr/lib/x86_64-linux-gnu/libcrypt.so.1",
            "/usr/lib/aarch64-linux-gnu/libcrypt.so.1",
            "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
            "/lib/x86_64-linux-gnu/libutil.so.1",
        )
        if os.path.exists(path)
    ]
    if not candidates:
        pytest.skip("no library on this host to try")
    library = candidates[0]
    folder, name = os.path.split(library)
    interp = with_cpython
    interp.execute("import numpy as np")
    with pytest.raises(CodeExecutionError):
        interp.execute(f"np.ctypeslib.load_library({name!r}, {folder!r})")
    with pytest.raises(CodeExecutionError):
        interp.execute(f"np.ctypeslib.ctypes.CDLL({library!r})")
    probe = (
        ATTEMPT
        + f"""
attempt("CDLL", lambda: ctypes.CDLL({library!r}))
attempt("cdll.LoadLibrary", lambda: ctypes.cdll.LoadLibrary({library!r}))
attempt("ctypeslib", lambda: __import__("numpy").ctypeslib.load_library({name!r}, {folder!r}))
attempt("dlopen", lambda: (_ for _ in ()).throw(OSError("no")) if not libc.dlopen({library.encode()!r}, 2) else "loaded")
out = (out, os.getpid())
"""
    )
    attempts, pid = interp.execute(f"cpython({probe!r})")
    refused(attempts)
    # The session process has not mapped it.
    maps = Path(f"/proc/{pid}/maps").read_text()
    assert name.split(".so")[0] + ".so" not in maps, [line for line in maps.splitlines() if name.split(".so")[0] in line]
    still_works(interp)


# --- Arbitrary CPython code in the session process meets the confinement -------------------------------------


def test_cpython_code_runs_but_reads_no_host_file(with_cpython, host_secret):
    path, content = host_secret
    probe = (
        ATTEMPT
        + f"""
import io, posix, pathlib
P = {str(path)!r}
attempt("FileIO", lambda: io.FileIO(P).read())
attempt("os.open", lambda: os.read(os.open(P, os.O_RDONLY), 100))
attempt("posix.open", lambda: os.read(posix.open(P, os.O_RDONLY), 100))
attempt("open", lambda: open(P).read())
attempt("pathlib", lambda: pathlib.Path(P).read_text())
attempt("hostname", lambda: io.FileIO("/etc/hostname").read())
attempt("posix.stat", lambda: posix.stat(P))
attempt("posix.listdir", lambda: posix.listdir(os.path.dirname(P)))
attempt("readlink", lambda: posix.readlink("/proc/self/exe"))
attempt("openat", lambda: os.read(syscall(257, -100, P.encode(), 0, 0), 100))
attempt("openat2", lambda: os.read(syscall(437, -100, P.encode(), ctypes.create_string_buffer(24), 24), 100))
attempt("open_by_handle", lambda: syscall(304, -100, ctypes.create_string_buffer(128), 0))
"""
    )
    outcomes = with_cpython.execute(f"cpython({probe!r})")
    assert content not in repr(outcomes)
    refused(outcomes)
    still_works(with_cpython)


def test_cpython_code_writes_no_host_file(with_cpython, host_target, victim):
    probe = (
        ATTEMPT
        + f"""
import io, posix
T, V = {str(host_target)!r}, {str(victim)!r}
attempt("FileIO", lambda: io.FileIO(T, "w").write(b"x"))
attempt("os.open", lambda: os.open(T, os.O_CREAT | os.O_WRONLY, 0o666))
# (posix.mkdir is the bridge's own in a session: the folder it makes is the session's; `written` checks the host.)
attempt("posix.symlink", lambda: posix.symlink("/etc/passwd", T))
attempt("posix.link", lambda: posix.link(V, T))
attempt("posix.mkfifo", lambda: posix.mkfifo(T))
attempt("posix.rename", lambda: posix.rename(V, T))
attempt("posix.truncate", lambda: posix.truncate(V, 0))
attempt("posix.chmod", lambda: posix.chmod(V, 0o600))
attempt("posix.unlink", lambda: posix.unlink(V))
attempt("creat", lambda: syscall(85, T.encode(), 0o666))
attempt("openat create", lambda: syscall(257, -100, T.encode(), os.O_CREAT | os.O_WRONLY, 0o666))
attempt("openat write victim", lambda: syscall(257, -100, V.encode(), os.O_WRONLY | os.O_TRUNC, 0))
"""
    )
    outcomes = with_cpython.execute(f"cpython({probe!r})")
    refused(outcomes)
    assert written(host_target) == []
    assert victim.read_text() == "victim content\n" and victim.stat().st_mode & 0o777 == 0o666
    still_works(with_cpython)


def test_cpython_code_starts_no_program_and_opens_no_socket(with_cpython, host_target, listener):
    target = str(host_target)
    probe = (
        ATTEMPT
        + f"""
import subprocess, socket, posix
T = {target!r}
attempt("subprocess", lambda: subprocess.run(["touch", T]))
attempt("Popen", lambda: subprocess.Popen(["/bin/sh", "-c", "touch " + T]))
attempt("execv", lambda: os.execv("/bin/sh", ["sh", "-c", "touch " + T]))
attempt("posix_spawn", lambda: os.posix_spawn("/usr/bin/touch", ["touch", T], {{}}))
attempt("system", lambda: (_ for _ in ()).throw(OSError(1, "failed")) if os.system("touch " + T) != 0 else "ran")
attempt("socket", lambda: socket.socket())
attempt("connect", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(("127.0.0.1", PORT)))
attempt("raw connect", lambda: syscall(42, 3, ctypes.create_string_buffer(16), 16))
attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", PORT)))
attempt("unix", lambda: socket.socket(socket.AF_UNIX).connect("/run/systemd/private"))
"""
    )
    outcomes = with_cpython.execute(f"cpython({probe!r}, PORT={listener.port})")
    refused(outcomes)
    assert listener.close() == []
    assert written(host_target) == []
    still_works(with_cpython)


def test_cpython_code_reaches_no_other_process(with_cpython):
    # Only harmless requests (signal 0, empty writes, reads without attaching), each refused by the filter (EPERM),
    # not by the kernel's permission checks, which would answer otherwise.
    probe = (
        ATTEMPT
        + """
attempt("kill host", lambda: os.kill(HOST, 0))
attempt("kill init", lambda: os.kill(1, 0))
attempt("tgkill", lambda: syscall(234, HOST, HOST, 0))
try:
    pidfd = syscall(434, HOST, 0)
except OSError:
    pidfd = -1
attempt("pidfd_send_signal", lambda: syscall(424, pidfd, 0, None, 0))
attempt("pidfd_getfd", lambda: syscall(438, pidfd, 0, 0))
buffer = (ctypes.c_char * 64)()
local = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 64)
remote = (ctypes.c_void_p * 2)(HOST_ADDRESS, 64)
empty = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 0)
attempt("process_vm_readv", lambda: syscall(310, HOST, local, 1, remote, 1, 0))
attempt("process_vm_writev", lambda: syscall(311, HOST, empty, 1, empty, 1, 0))
attempt("ptrace peek", lambda: syscall(101, 2, HOST, HOST_ADDRESS, 0))
attempt("setuid", lambda: os.setuid(0))
attempt("unshare", lambda: syscall(272, 0x10000000))
limit = (ctypes.c_ulong * 2)(1 << 20, 1 << 20)
attempt("setrlimit", lambda: syscall(160, 7, limit))
attempt("prlimit host", lambda: syscall(302, HOST, 7, None, limit))
"""
    )
    token = b"host-memory-" + secrets.token_hex(8).encode()
    held = ctypes_buffer(token)
    outcomes = with_cpython.execute(f"cpython({probe!r}, HOST={os.getpid()}, HOST_ADDRESS={held[1]})")
    refused(outcomes)
    not_eperm = {name: outcome for name, outcome in outcomes.items() if outcome[2] != 1}
    assert not not_eperm, not_eperm
    assert token.decode() not in repr(outcomes)
    still_works(with_cpython)


def ctypes_buffer(data: bytes):
    """A buffer of the host process's holding `data`, and its address."""
    import ctypes

    buffer = ctypes.create_string_buffer(data)
    return buffer, ctypes.addressof(buffer)


C_ENVIRON = """
import os, ctypes
environ = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
found, i = [], 0
while environ[i] is not None:
    found.append(environ[i])
    i += 1
out = (dict(os.environ), found)
"""


def test_the_hosts_environment_is_nowhere_in_the_session(make_interp, monkeypatch, tmp_path):
    # A package set of its own (a folder of the test's), so that its zygote starts after the variable is set.
    secret = "env-secret-" + secrets.token_hex(10)
    monkeypatch.setenv("DRI_ATTACK_ENV_SECRET", secret)
    (tmp_path / "attack_env_marker.py").write_text("X = 1\n")
    interp = make_interp(packages=[*PACKAGES, str(tmp_path)], timeout=60)
    interp.execute(CPYTHON_PRELUDE)
    texts = [
        repr(interp.execute("import os\nsorted(os.environ.items())")),
        repr(interp.execute("import numpy as np, pandas as pd\nsorted(pd.io.common.os.environ.items())")),
        repr(interp.execute(f"cpython({C_ENVIRON!r})")),
        repr(
            interp.execute(
                "import io, contextlib\nbuffer = io.StringIO()\n"
                "with contextlib.redirect_stdout(buffer):\n    np.show_config()\n    pd.show_versions()\n"
                "buffer.getvalue()"
            )
        ),
    ]
    for text in texts:
        assert secret not in text and "DRI_ATTACK_ENV_SECRET" not in text, text[:500]
    still_works(interp)


def test_a_forked_child_does_not_outlive_shutdown(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=60)
    interp.execute(CPYTHON_PRELUDE)
    fork = "import os, time\npid = os.fork()\nif pid == 0:\n    while True:\n        time.sleep(0.2)\nout = pid"
    pid = interp.execute(f"cpython({fork!r})")
    assert isinstance(pid, int) and pid > 0
    # The child is confined as the session is.
    status = Path(f"/proc/{pid}/status").read_text()
    assert re.search(r"^Seccomp:\s+2", status, re.M), status
    interp.shutdown()
    deadline = time.monotonic() + 10
    alive = True
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            alive = False
            break
        if state == "Z":
            alive = False
            break
        time.sleep(0.1)
    if alive:
        os.kill(pid, 9)  # the process this test made the session start
    assert not alive, "a process the session forked outlived shutdown()"


GARBAGE = """
import os
fds = []
for fd in range(3, 64):
    try:
        os.write(fd, b"")
        fds.append(fd)
    except OSError:
        pass
for fd in fds:
    os.write(fd, b"\\xff" * 4096 + b"\\x00" * 4096)
out = fds
"""


def test_garbage_on_the_sessions_socket_loses_only_the_session(with_cpython):
    interp = with_cpython
    interp.execute("kept = 41")
    # Its socket to the host is the one descriptor past stdin/stdout/stderr that takes a write.
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(f"cpython({GARBAGE!r})")
    assert raised.value.error_type == "SystemError", raised.value
    assert interp.execute("kept + 1") == 42
    still_works(interp)


def test_cpython_ignoring_the_stop_is_abandoned_in_time(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=1.5, abandon_after=1.5)
    interp.execute(CPYTHON_PRELUDE + "\nkept = 41")
    for code in (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(10**6)",
    ):
        started = time.monotonic()
        with pytest.raises(CodeExecutionError) as raised:
            interp.execute(f"cpython({code!r})")
        assert raised.value.error_type == "TimeoutError", raised.value
        assert time.monotonic() - started < 20
        assert interp.execute("kept + 1") == 42
    still_works(interp)


def test_memory_bombs_and_wild_reads_lose_at_most_the_cell(make_interp):
    interp = make_interp(packages=PACKAGES, timeout=30, memory_limit=512 << 20)
    interp.execute(CPYTHON_PRELUDE + "\nimport numpy as np\nkept = 41")
    for code in (
        "np.ones(10**11)",
        "np.empty((10**5, 10**5)).fill(1)",
        "cpython('out = bytearray(10**10)')",
        "cpython('out = len(b\"x\" * (3 << 30))')",
        # Reads and writes through arrays laid over arbitrary memory of the session process.
        "a = np.zeros(1, dtype=np.uint8)\nb = np.lib.stride_tricks.as_strided(a, shape=(2,), strides=(1 << 62,))\nint(b[1])",
        "a = np.zeros(1, dtype=np.uint64)\nb = np.lib.stride_tricks.as_strided(a, shape=(2,), strides=(1 << 62,))\n"
        "b[1] = 0xdeadbeef",
        "cpython('import ctypes\\nout = ctypes.string_at(4096, 8)')",
        "cpython('import os\\nos.abort()')",
        "cpython('import os\\nos._exit(0)')",
    ):
        with pytest.raises(CodeExecutionError) as raised:
            interp.execute(code)
        assert raised.value.error_type in ("MemoryError", "SystemError"), (code, raised.value)
        assert interp.execute("kept + 1") == 42, code
    still_works(interp)


def test_pandas_eval_scope_reaches_cpython_but_not_the_host(make_interp, host_secret, host_target):
    # `df.eval('@name', level=-3)` resolves names in pandas' own frames: CPython's `sys`, hence every module and
    # `eval` of CPython. What that code reaches is the confined process's.
    path, content = host_secret
    interp = make_interp(packages=PACKAGES, timeout=60)
    attempts = [
        ("read", f"out = __import__('io').FileIO({str(path)!r}).read()"),
        ("write", f"out = __import__('os').open({str(host_target)!r}, 65, 0o666)"),
        ("system", f"out = __import__('os').system('touch {host_target}')"),
    ]
    result = interp.execute(
        "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\n"
        "def cpy(src):\n"
        "    return df.eval('@sys.modules[\"builtins\"].eval(@expr, @ns)', engine='python', level=-3,\n"
        "                   local_dict={'expr': \"exec(src, g) or g.get('out')\", 'ns': {'src': src, 'g': {}}})\n"
        "outcomes = {}\n"
        f"for name, src in {attempts!r}:\n"
        "    try:\n"
        "        outcomes[name] = repr(cpy(src))\n"
        "    except BaseException as error:\n"
        "        outcomes[name] = type(error).__name__ + ': ' + str(error)\n"
        "outcomes"
    )
    assert content not in repr(result)
    assert result["read"].startswith("PermissionError"), result
    assert result["write"].startswith("PermissionError"), result
    assert written(host_target) == []
    still_works(interp)
