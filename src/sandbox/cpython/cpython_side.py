"""The CPython end of the bridge to the host's compiled packages (numpy, pandas, matplotlib, ...). Runs in the
CPython of a package set's zygote and of every session forked from it, never in the sandbox's VM: it is trusted
code, run as a module of its own (``_dspy_cpython_side``) by ``src/sandbox/cpython/zygote.rs``.

In the zygote, before it is confined, ``prepare`` imports the packages the host's caller named (and only them:
a finder serves their top-level names from their folders, nothing else of ``site-packages`` is on the path),
every module inside them, and reads their data files into memory. ``connect`` then points CPython's files,
streams and warnings at the sandbox: in a session, a library that opens a path, asks ``os`` about one, prints or
warns reaches the session's own files, output and ``warnings`` through the sandbox, and a package's own data
files (fonts, time zones) are answered from memory. ``classify`` and ``describe`` tell the Rust end how an
object crosses into the sandbox; ``SandboxObject`` is a sandbox object on this side."""

import errno
import gc
import importlib
import importlib.machinery
import io
import os
import pickle
import pkgutil
import stat as _stat
import sys
import types
import warnings

# Set by `connect`: the Rust end's callback into the sandbox, `apply(target, op, args, kwargs)`.
_apply = None
# The top-level names the packages are imported as.
_ALLOWED = frozenset()
# Host path -> bytes of each data file of the packages, and host folder -> its entries: read in the zygote.
_PREREAD = {}
_FOLDERS = {}
# Bounds on what the zygote reads of the packages' data files.
_MAX_PREREAD_BYTES = 512 << 20
_MAX_PREREAD_FILE = 64 << 20

# Standard-library modules the packages import only when used (a session cannot read files to import them):
# every codec (zipfile's names are cp437), compression, and what file formats need.
_STANDARD_AHEAD = [f"encodings.{m.name}" for m in pkgutil.iter_modules(importlib.import_module("encodings").__path__)] + [
    "zipfile", "gzip", "bz2", "lzma", "tarfile", "csv", "json", "decimal", "fractions", "statistics", "zoneinfo",
    "uuid", "pickle", "copy", "shutil", "tempfile", "locale", "calendar", "difflib", "html", "xml.etree.ElementTree",
    "sqlite3", "email.utils", "urllib.parse", "urllib.error", "urllib.request", "dataclasses", "typing", "inspect",
    "textwrap", "string", "random", "importlib.resources", "importlib.resources.readers", "importlib.readers",
]

# Folders inside packages that are never imported ahead: test suites (they import test frameworks and fixtures).
_SKIPPED_PARTS = frozenset({"tests", "test", "conftest", "_pytest", "benchmarks"})
# Interactive matplotlib backends (a GUI toolkit each): a session has no display.
_GUI_BACKEND = ("qt", "tk", "gtk", "wx", "macosx", "nbagg", "webagg", "ipympl", "cairo")


class _PackagesFinder:
    """Finds the named packages' top-level modules in their own folders, and nothing else outside the standard
    library: an optional import of a package the caller did not name fails, as it would were it not installed."""

    def __init__(self, parents):
        self.parents = parents

    def find_spec(self, name, path=None, target=None):
        parent = self.parents.get(name) if path is None else None
        return importlib.machinery.PathFinder.find_spec(name, [parent]) if parent else None

    def invalidate_caches(self):
        pass


def allowed_names():
    return sorted(_ALLOWED)


def _allowed(module_name):
    return isinstance(module_name, str) and module_name.partition(".")[0] in _ALLOWED


# Host folder of each top-level module -> where the sandbox shows it (/packages, as its files are mounted there).
_SHOWN_FOLDERS = {}


def shown_path(path):
    """A path of the packages' files as the sandbox sees them (``np.__file__`` is ``/packages/numpy/...``)."""
    if isinstance(path, str):
        for folder, shown in _SHOWN_FOLDERS.items():
            if path == folder or path.startswith(folder + os.sep):
                return shown + path[len(folder) :]
        return path
    if isinstance(path, (list, tuple)):
        return type(path)(shown_path(item) for item in path)
    return path


def prepare(tops, config_dir):
    """Import the packages (``tops``: (import name, host path) pairs) with every module inside them, and read their
    data files. One thread for every numeric library: no thread needs to survive the forks that follow."""
    global _ALLOWED
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_MAX_THREADS"):
        os.environ[variable] = "1"
    os.environ["MPLBACKEND"] = "Agg"
    os.environ["MPLCONFIGDIR"] = config_dir
    parents = {}
    for name, path in tops:
        name = name[:-3] if name.endswith(".py") else name
        parents[name] = os.path.dirname(path)
        _SHOWN_FOLDERS[path] = "/packages/" + os.path.basename(path)
    _ALLOWED = frozenset(parents)
    sys.meta_path.append(_PackagesFinder(parents))
    failed = []
    for name in sorted(parents):
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - the session's import reports it again, in its own words
            failed.append(f"{name}: {type(error).__name__}: {error}")
            continue
        _import_inside(name)
    for module in _STANDARD_AHEAD:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    budget = [_MAX_PREREAD_BYTES]
    for name, path in tops:
        if os.path.isdir(path):
            _read_folder(path, budget)
    _warm_up()
    return failed


def _import_inside(name):
    module = sys.modules.get(name)
    path = getattr(module, "__path__", None)
    if not path:
        return
    for info in pkgutil.walk_packages(path, name + ".", onerror=lambda _name: None):
        parts = info.name.split(".")
        if any(part in _SKIPPED_PARTS or part.startswith("conftest") for part in parts):
            continue
        if parts[:2] == ["matplotlib", "backends"] and any(gui in info.name for gui in _GUI_BACKEND):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001, S112 - a module that needs what is not installed stays unimported
            continue


def _read_folder(root, budget):
    real_root = os.path.realpath(root) + os.sep
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_PARTS and d != "__pycache__"]
        _FOLDERS[folder] = sorted(dirs + files)
        for file in files:
            if file.endswith((".py", ".pyc", ".pyi", ".so", ".pxd", ".pyx", ".h", ".c")):
                continue
            path = os.path.join(folder, file)
            # A link is read only when it stays inside the package (one out of it would show a host file).
            if not os.path.realpath(path).startswith(real_root):
                continue
            try:
                size = os.path.getsize(path)
                if size > _MAX_PREREAD_FILE or size > budget[0]:
                    continue
                with open(path, "rb") as handle:
                    _PREREAD[path] = handle.read()
                budget[0] -= size
            except OSError:
                continue


def _warm_up():
    """What a library does once, on first use, and would do in every session otherwise (matplotlib: its font
    list and the default font's glyphs), or could not do in a session (a time zone read from ``tzdata`` imports
    ``importlib.resources``' readers)."""
    if "tzdata" in sys.modules:
        try:
            sys.modules["zoneinfo"].ZoneInfo.no_cache("Europe/Paris")
        except Exception:  # noqa: BLE001, S110 - a session's time zones fail then, in their words
            pass
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    try:
        figure = pyplot.figure()
        figure.gca().plot([0, 1], [0, 1], label="x")
        figure.gca().set_title("warm")
        figure.gca().legend()
        figure.savefig(io.BytesIO(), format="png")
        pyplot.close(figure)
    except Exception:  # noqa: BLE001, S110 - the session draws it then, with the error in its words
        pass


# --- A session's files, streams and warnings -----------------------------------------------------------------


def _key(path):
    """The absolute host-side key of a path a library gave, for the packages' own files (their paths come from
    their modules' ``__file__``, always absolute)."""
    try:
        path = os.fspath(path)
    except TypeError:
        return None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str) or not path.startswith("/"):
        return None
    return os.path.normpath(path)


def _sandbox(op, *args, **kwargs):
    return _apply(None, op, args, kwargs)


def _no_descriptor(what):
    raise OSError(errno.EBADF, f"{what} takes a path here, not a file descriptor")


def _open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    if isinstance(file, int):
        _no_descriptor("open")
    key = _key(file)
    if key in _PREREAD:
        if any(c in mode for c in "wax+"):
            raise PermissionError(errno.EROFS, "Read-only file system", os.fspath(file))
        raw = io.BytesIO(_PREREAD[key])
        raw.name = key
        if "b" in mode:
            return raw
        return io.TextIOWrapper(raw, encoding=encoding or "utf-8", errors=errors, newline=newline)
    if key in _FOLDERS:
        raise IsADirectoryError(errno.EISDIR, "Is a directory", os.fspath(file))
    return _sandbox("open", os.fspath(file), mode, buffering, encoding, errors, newline)


def _stat_result(mode, size):
    return os.stat_result((mode, 0, 0, 1, 0, 0, size, 0, 0, 0))


def _path_function(name):
    def function(path, *args, **kwargs):
        if isinstance(path, int):
            _no_descriptor(f"os.{name}")
        key = _key(path)
        if key is not None and (key in _PREREAD or key in _FOLDERS):
            if name in ("stat", "lstat"):
                if key in _PREREAD:
                    return _stat_result(_stat.S_IFREG | 0o444, len(_PREREAD[key]))
                return _stat_result(_stat.S_IFDIR | 0o555, 0)
            if name == "listdir":
                return list(_FOLDERS.get(key, ()))
            if name == "access":
                return not (args and args[0] & os.W_OK)
            raise PermissionError(errno.EROFS, "Read-only file system", os.fspath(path))
        return _sandbox(name, path, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "os"
    return function


_ROUTED_OS = ("stat", "lstat", "listdir", "scandir", "mkdir", "remove", "unlink", "rmdir", "access", "chmod", "utime")


def _two_paths(name):
    def function(source, destination, *args, **kwargs):
        for path in (source, destination):
            key = _key(path)
            if key in _PREREAD or key in _FOLDERS:
                raise PermissionError(errno.EROFS, "Read-only file system", os.fspath(path))
        return _sandbox(name, source, destination, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "os"
    return function


def _getcwd():
    return _sandbox("getcwd")


def _chdir(path):
    return _sandbox("chdir", path)


class _SandboxStream(io.TextIOBase):
    """CPython's ``sys.stdout``/``sys.stderr`` in a session: the sandbox's current ones (``df.info()`` prints)."""

    def __init__(self, name):
        self._name = name

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        _sandbox("write", self._name, text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"


def _show_warning(message, category, filename, lineno, file=None, line=None):
    # A warning a package attributes to code inside itself (its own deprecations) CPython shows only when it
    # comes from `__main__`; one attributed to its caller (`stacklevel` past this side's frames: "sys") is the
    # model's code, which the sandbox's filters then judge as CPython's would.
    if issubclass(category, (DeprecationWarning, PendingDeprecationWarning)) and filename != "sys":
        return
    _sandbox("warn", str(message), category)


def _replace_everywhere(original, replacement):
    """Put ``replacement`` wherever a dict holds ``original``: a module's globals (``from os import stat``), a
    table a package built at import (numpy's ``DataSource`` keeps ``{None: io.open}``)."""
    for holder in gc.get_referrers(original):
        if isinstance(holder, dict):
            for key, value in list(holder.items()):
                if value is original:
                    holder[key] = replacement


def connect(apply):
    """Point the session's CPython at the sandbox (done in the zygote, for every session it forks)."""
    global _apply
    _apply = apply
    replaced = [(io.open, _open)]
    for name in _ROUTED_OS:
        replaced.append((getattr(os, name), _path_function(name)))
    replaced += [
        (os.rename, _two_paths("rename")),
        (os.replace, _two_paths("replace")),
        (os.getcwd, _getcwd),
        (os.chdir, _chdir),
    ]
    # The host's name and kernel are not the session's (CPython's `platform` cached them in the zygote).
    shown = os.uname_result(("Linux", "sandbox", "", "", os.uname().machine))
    replaced.append((os.uname, lambda: shown))
    socket = sys.modules.get("socket")
    if socket is not None:
        replaced.append((socket.gethostname, lambda: "sandbox"))
    platform = sys.modules.get("platform")
    if platform is not None:
        platform._uname_cache = None
        platform._node = lambda default="": "sandbox"
    for original, replacement in replaced:
        _replace_everywhere(original, replacement)
    sys.stdout = _SandboxStream("stdout")
    sys.stderr = _SandboxStream("stderr")
    warnings.resetwarnings()
    warnings.simplefilter("always")
    warnings.showwarning = _show_warning


def reseed():
    """What seeded itself at import in the zygote draws a fresh seed in each session, as in a new process."""
    random = sys.modules.get("numpy.random")
    if random is not None:
        random.seed()


# --- How an object crosses into the sandbox ------------------------------------------------------------------


class SandboxObject:
    """A sandbox object (a function, a file, an instance of a class the model wrote) on this side: every use is
    forwarded to the sandbox, where it runs as sandbox code."""

    __slots__ = ("_ref",)

    def __init__(self, ref):
        self._ref = ref

    def __getattr__(self, name):
        return _apply(self._ref, "getattr", (name,), {})

    def __setattr__(self, name, value):
        if name == "_ref":
            object.__setattr__(self, name, value)
        else:
            _apply(self._ref, "setattr", (name, value), {})


def _forwarding(op):
    def method(self, *args, **kwargs):
        return _apply(self._ref, op, args, kwargs)

    method.__name__ = op
    return method


for _op in ("__repr__", "__str__", "__format__", "__hash__", "__eq__", "__ne__"):
    setattr(SandboxObject, _op, _forwarding(_op))

# The special methods a sandbox object's class may have beyond those (names from `_sandbox_cpython.SPECIAL`).
_sandbox_classes = {}


def sandbox_object(ref, special):
    """A sandbox object on this side, with exactly the special methods its sandbox class has (a function is
    callable and not iterable, as pandas' checks expect)."""
    special = tuple(special)
    cls = _sandbox_classes.get(special)
    if cls is None:
        namespace = {"__slots__": (), **{name: _forwarding(name) for name in special}}
        cls = _sandbox_classes[special] = type("SandboxObject", (SandboxObject,), namespace)
    return cls(ref)


# Kinds `classify` answers (read by src/sandbox/cpython/values.rs).
WRAP, MODULE, MIRROR, SANDBOX, VALUE, REFUSED, UNWRAP, EXCEPTION = range(8)

_CALLABLE_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
)
_ITERATOR_TYPES = (types.GeneratorType,)
# The standard library's modules whose values cross as values (by pickle), and the classes of theirs a value
# may name: nothing else can be constructed on the way in (`_Unpickler`).
_VALUE_MODULES = frozenset(
    {"datetime", "decimal", "fractions", "collections", "uuid", "ipaddress", "pathlib", "re", "enum", "zoneinfo"}
)
# Standard-library modules whose objects never cross, not even as handles: the interpreter's own machinery and
# what reaches the operating system (the session process's confinement holds anyway; this keeps them out of reach).
_REFUSED_MODULES = frozenset(
    {"os", "posix", "sys", "builtins", "io", "_io", "ctypes", "_ctypes", "subprocess", "socket", "_socket", "ssl",
     "importlib", "_frozen_importlib", "_frozen_importlib_external", "zipimport", "threading", "_thread",
     "multiprocessing", "concurrent", "signal", "mmap", "gc", "marshal", "pickle", "_pickle", "code", "codeop",
     "runpy", "pty", "fcntl", "resource", "select", "selectors", "asyncio", "faulthandler", "tracemalloc",
     "_dspy_cpython_side"}
)
_BUILTIN_VALUES = frozenset(
    {"set", "frozenset", "list", "dict", "tuple", "slice", "range", "bytearray", "complex", "bool", "int", "float",
     "str", "bytes", "object", "getattr", "NotImplemented", "Ellipsis"}
)
_kind_of_type = {}


def _refused(obj, why):
    return (REFUSED, f"{why}: the sandbox does not hand out CPython's {_label(obj)}")


def _label(obj):
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__!r}"
    if isinstance(obj, type):
        return f"class {obj.__module__}.{obj.__qualname__}"
    return f"{type(obj).__module__}.{type(obj).__qualname__} object"


class _Pickler(pickle.Pickler):
    """Pickles a value of the standard library; anything of the packages inside it crosses as itself."""

    def __init__(self, file, refs):
        super().__init__(file, protocol=4)
        self.refs = refs

    def persistent_id(self, obj):
        if isinstance(obj, (str, int, float, bytes, bool, type(None))):
            return None
        if isinstance(obj, SandboxObject) or _allowed(getattr(type(obj), "__module__", None)) or (
            isinstance(obj, (type, types.ModuleType)) and _allowed(getattr(obj, "__module__", obj.__name__))
        ):
            self.refs.append(obj)
            return len(self.refs) - 1
        return None


def classify(obj):
    """How ``obj`` crosses into the sandbox: (kind, detail)."""
    kind = _kind_of_type.get(type(obj))
    if kind is not None:
        return kind
    if isinstance(obj, SandboxObject):
        return (UNWRAP, obj._ref)
    if isinstance(obj, types.ModuleType):
        if _allowed(obj.__name__):
            return (MODULE, obj.__name__)
        # The standard library's modules are the sandbox's own (`np.lib.npyio.os` is the sandbox's `os`).
        return (SANDBOX, (obj.__name__, None))
    if isinstance(obj, type):
        if _allowed(obj.__module__):
            return (MIRROR, None)
        return (SANDBOX, (obj.__module__, obj.__qualname__))
    if isinstance(obj, BaseException):
        return (EXCEPTION, None)
    if isinstance(obj, types.TracebackType):
        # What a context manager's `__exit__` is handed with the exception: nothing of CPython's frames.
        return (SANDBOX, ("builtins", "None"))
    if obj is NotImplemented or obj is Ellipsis:
        return (SANDBOX, ("builtins", "NotImplemented" if obj is NotImplemented else "Ellipsis"))
    tp = type(obj)
    if _allowed(tp.__module__):
        _kind_of_type[tp] = (WRAP, None)
        return (WRAP, None)
    # A function of the packages whatever its type (Cython's own function type, `np.random.default_rng`).
    if callable(obj) and not isinstance(obj, _CALLABLE_TYPES) and _allowed(getattr(obj, "__module__", None)):
        return (WRAP, None)
    if isinstance(obj, _CALLABLE_TYPES):
        owner = getattr(obj, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            allowed = _allowed(type(owner).__module__) or (isinstance(owner, type) and _allowed(owner.__module__))
            if allowed or isinstance(owner, SandboxObject):
                return (WRAP, None)
        objclass = getattr(obj, "__objclass__", None)
        if objclass is not None and _allowed(getattr(objclass, "__module__", None)):
            return (WRAP, None)
        module = getattr(obj, "__module__", None)
        if module is None and isinstance(owner, types.ModuleType):
            module = owner.__name__
        if _allowed(module):
            return (WRAP, None)
        qualname = getattr(obj, "__qualname__", None)
        if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
            return (SANDBOX, (module, qualname))
        return _refused(obj, "a function of the standard library")
    if isinstance(obj, _ITERATOR_TYPES):
        frame = getattr(obj, "gi_frame", None)
        if frame is None or _allowed(frame.f_globals.get("__name__")):
            return (WRAP, None)
        return _refused(obj, "a generator outside the packages")
    if tp.__module__ == "builtins" and tp.__name__ not in _BUILTIN_VALUES:
        if hasattr(tp, "__next__") or hasattr(tp, "__iter__"):
            return (WRAP, None)
        return _refused(obj, "an object of the interpreter itself")
    top = tp.__module__.partition(".")[0]
    if top in _REFUSED_MODULES:
        return _refused(obj, "an object of the interpreter's own machinery")
    if tp.__module__ != "builtins" and top not in _VALUE_MODULES:
        # A helper the packages hand out from the standard library (`np.testing.assert_raises(...)` is unittest's
        # context manager, pandas' `tm.assert_produces_warning` contextlib's): a handle like theirs.
        return (WRAP, None)
    refs = []
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, refs).dump(obj)
    except Exception as error:  # noqa: BLE001 - not a value that can cross
        return _refused(obj, f"a value that cannot be copied ({error})")
    return (VALUE, (buffer.getvalue(), refs))


_VALUE_BASES = {
    float: "float", complex: "complex", str: "str", bytes: "bytes", int: "int", tuple: "tuple", list: "list"
}
# Special methods a mirror class never forwards: the sandbox's own object model answers them (and `__del__`: a
# handle going away must not finalize CPython's object, which another handle may hold; CPython does that itself).
_OWN_SPECIAL = frozenset(
    "__class__ __dict__ __doc__ __module__ __weakref__ __slots__ __getattribute__ __getattr__ __setattr__ "
    "__delattr__ __init__ __new__ __init_subclass__ __subclasshook__ __getstate__ "
    "__setstate__ __sizeof__ __class_getitem__ __instancecheck__ __subclasscheck__ __abstractmethods__ "
    "__annotations__ __dictoffset__ __weakrefoffset__ __basicsize__ __itemsize__ __flags__ __mro__ __bases__ "
    "__base__ __name__ __qualname__ __text_signature__ __orig_bases__ __parameters__ __firstlineno__ "
    "__static_attributes__ __type_params__ __del__".split()
)


def _is_method(tp, name):
    """Whether ``tp.<name>`` is a method (forwarded as one), not data (``function.__globals__``, ``__doc__``)."""
    found = getattr(tp, name, None)
    data = (types.GetSetDescriptorType, types.MemberDescriptorType, property, type)
    return found is not None and callable(found) and not isinstance(found, data)


def describe(tp):
    """What the sandbox's mirror of class ``tp`` needs: its names, bases (classes, mirrored in turn), the value
    type it derives from, whether it is an exception, and the special methods it has."""
    bases = [
        ("builtins", base.__name__) if base.__module__ == "builtins" else ("mirror", base)
        for base in tp.__bases__
        if base is not object and (base.__module__ == "builtins" or _allowed(base.__module__))
    ]
    value = next((name for base, name in _VALUE_BASES.items() if issubclass(tp, base)), None)
    special = sorted(
        name
        for name in dir(tp)
        if name.startswith("__") and name.endswith("__") and name not in _OWN_SPECIAL and _is_method(tp, name)
    )
    return (
        tp.__name__,
        tp.__qualname__,
        tp.__module__,
        bases,
        value,
        issubclass(tp, BaseException),
        special,
        getattr(tp, "__hash__", None) is None,
    )


class _Unpickler(pickle.Unpickler):
    """Builds a value the sandbox sends: only the standard library's value classes, never a callable that acts."""

    def __init__(self, file, refs):
        super().__init__(file)
        self.refs = refs

    def persistent_load(self, pid):
        return self.refs[pid]

    def find_class(self, module, name):
        if module in ("copyreg", "builtins") and name in _BUILTIN_VALUES | {"_reconstructor"}:
            return super().find_class(module, name)
        if module.partition(".")[0] in _VALUE_MODULES and not name.startswith("_"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"the sandbox may not send {module}.{name}")


_named_tuples = {}


def named_tuple(name, fields, items):
    """A sandbox named tuple on this side: a CPython one of the same name and fields (pandas reads its fields)."""
    key = (name, tuple(fields))
    cls = _named_tuples.get(key)
    if cls is None:
        import collections

        cls = _named_tuples[key] = collections.namedtuple(name, fields)
    return cls(*items)


def from_pickle(data, refs):
    return _Unpickler(io.BytesIO(data), refs).load()


def apply(obj, op, args, kwargs):
    """An operation on one of the packages' objects that the Rust end does not do itself."""
    return _OPS[op](obj, *args, **kwargs)


def _setattr(obj, name, value):
    setattr(obj, name, value)


def _delattr(obj, name):
    delattr(obj, name)


def _module_path(module, name):
    return shown_path(list(getattr(module, name)) if name == "__path__" else getattr(module, name))


def _library_parts(obj):
    return sys.modules["_dspy_library_data"].parts_of(obj, True)


def _library_value(_none, kind, parts):
    return sys.modules["_dspy_library_data"].make(kind, parts)


_OPS = {
    "library_parts": _library_parts,
    "library_value": _library_value,
    "module_path": _module_path,
    "setattr": _setattr,
    "delattr": _delattr,
    "dir": lambda obj: sorted(dir(obj)),
}
