"""The sandbox's end of the bridge to the host's compiled packages (numpy, pandas, matplotlib, ...), which run in
the session process's own CPython (src/sandbox/cpython/). ``import numpy`` gives a module whose attributes are
CPython's; each CPython object that is not a plain value arrives as an instance of a *mirror* of its class: a
sandbox class with the same name, module and bases (mirrored in turn), so ``isinstance(x, np.ndarray)`` and
``except pandas.errors.ParserError`` hold, whose special methods forward to CPython's (operators, reflected and
in place, indexing, iteration, ``len``, ``repr``, ``format``, comparisons, hashing). A CPython ``float`` subclass
(``np.float64``) is a sandbox ``float`` too, as in CPython. Sandbox functions and objects handed to CPython are
called back as sandbox code (``df.apply(lambda r: ...)``), and CPython's files, streams and warnings are the
session's (``apply`` below runs what CPython asks of the sandbox)."""

import sys

# The top-level names served by CPython (set by the zygote of a package set that has them).
BRIDGED = frozenset()

# The Rust end's functions (src/sandbox/cpython/natives.rs), set when the zygote connects the two ends:
# getattr(ref, name), call(ref, args, kwargs), method(ref, name, args, kwargs), apply(ref, op, args), module(name).
_getattr = _call = _method = _apply = _module = None

_object_new = object.__new__
_object_setattr = object.__setattr__
_type_getattribute = type.__getattribute__
_ModuleType = type(sys)


class Foreign:
    """What every mirror of a CPython class derives from: an object of CPython's, held by ``_cpy``."""

    # `__weakref__`: the bridge keeps one handle per CPython object while it lives, by a weak reference.
    __slots__ = ("_cpy", "__weakref__")

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return _getattr(_ref_of(self), name)

    def __setattr__(self, name, value):
        _apply(_ref_of(self), "setattr", (name, value))

    def __delattr__(self, name):
        _apply(_ref_of(self), "delattr", (name,))

    def __dir__(self):
        return _apply(_ref_of(self), "dir", ())


_ref_of = Foreign._cpy.__get__
_set_ref = Foreign._cpy.__set__


class ForeignType(type):
    """The class of every mirror: calling one makes the object in CPython; its other attributes are CPython's."""

    def __call__(cls, *args, **kwargs):
        return _call(_type_getattribute(cls, "_cpy_type"), args, kwargs)

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")
        return _getattr(_type_getattribute(cls, "_cpy_type"), name)

    def __dir__(cls):
        return _apply(_type_getattribute(cls, "_cpy_type"), "dir", ())


class ForeignExceptionType(type):
    """The class of a mirror of an exception class: its instances are the sandbox's own exceptions (raised and
    caught as any), its other attributes CPython's."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")
        return _getattr(_type_getattribute(cls, "_cpy_type"), name)


def _exception_str(self):
    """What CPython's exception said (numpy's MemoryError words its own), else what its class says."""
    text = self.__dict__.get("_cpython_str")
    if text is not None:
        return text
    for base in type(self).__mro__[1:]:
        method = base.__dict__.get("__str__")
        if method is not None and method is not _exception_str:
            return method(self)
    return BaseException.__str__(self)


def _forwarding(name):
    def method(self, *args, **kwargs):
        return _method(_ref_of(self), name, args, kwargs)

    method.__name__ = name
    return method


def make_mirror(ref, name, qualname, module, bases, value, exception, special, unhashable):
    """The mirror of a CPython class (``describe`` in cpython_side.py says what it has; ``bases`` are mirrors and
    the sandbox's own classes already)."""
    namespace = {"__module__": module, "__qualname__": qualname, "_cpy_type": ref}
    if exception:
        bases = tuple(base for base in bases if isinstance(base, type) and issubclass(base, BaseException))
        namespace["__str__"] = _exception_str
        return ForeignExceptionType(name, bases or (Exception,), namespace)
    for special_name in special:
        namespace[special_name] = _forwarding(special_name)
    if unhashable:
        namespace["__hash__"] = None
    if value is not None:
        namespace["_value_base"] = value
    namespace["__slots__"] = ()
    if not any(isinstance(base, type) and issubclass(base, Foreign) for base in bases):
        bases = (*bases, Foreign)
    try:
        return ForeignType(name, bases, namespace)
    except TypeError:
        # Bases the sandbox cannot order as CPython does: the class itself, with its value type.
        kept = (Foreign,) + ((value,) if value is not None else ())
        return ForeignType(name, kept, namespace)


def wrap(cls, ref, value):
    """An object of CPython's, as an instance of its class's mirror (``value``: what a value-type base holds)."""
    if value is None:
        obj = _object_new(cls)
    elif cls._value_base is list:
        obj = list.__new__(cls)
        list.extend(obj, value)
    else:
        obj = cls._value_base.__new__(cls, value)
    _set_ref(obj, ref)
    return obj


class ForeignModule(_ModuleType):
    """A module of the packages: its attributes are CPython's (functions and classes kept once found)."""

    def __getattr__(self, name):
        ref = _ModuleType.__getattribute__(self, "__dict__").get("__cpython__")
        if ref is None:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        if name in ("__file__", "__path__", "__cached__"):
            # Where the sandbox shows the packages' files (/packages), not the host's folders.
            return _apply(ref, "module_path", (name,))
        value = _getattr(ref, name)
        if callable(value) or isinstance(value, _ModuleType):
            _ModuleType.__setattr__(self, name, value)
        return value

    def __dir__(self):
        ref = _ModuleType.__getattribute__(self, "__dict__").get("__cpython__")
        return _apply(ref, "dir", ())


def module_for(name, ref):
    """The sandbox's module for CPython's module ``name``: one per name, kept in ``sys.modules``."""
    module = sys.modules.get(name)
    if isinstance(module, ForeignModule):
        return module
    module = ForeignModule(name)
    module.__cpython__ = ref
    sys.modules[name] = module
    return module


def standard(module, qualname):
    """The sandbox's own object for one of CPython's standard library (``np.lib.npyio.os`` is the sandbox's ``os``)."""
    if module == "builtins" and qualname == "None":
        return None
    __import__(module)
    found = sys.modules[module]
    for part in (qualname or "").split(".") if qualname else ():
        found = getattr(found, part)
    return found


class CPythonFinder:
    """Imports the packages CPython serves: each module is CPython's, as a ``ForeignModule``."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] not in BRIDGED:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, CPythonLoader, is_package=True)

    @staticmethod
    def invalidate_caches():
        pass


class CPythonLoader:
    @staticmethod
    def create_module(spec):
        return _module(spec.name)

    @staticmethod
    def exec_module(module):
        pass


# --- What CPython asks of the sandbox ------------------------------------------------------------------------

_VALUE_MODULES = frozenset({"datetime", "decimal", "fractions", "collections", "uuid", "ipaddress", "pathlib"})


def _caller():
    """The innermost frame of the model's code (past this module's)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals is _MACHINERY_GLOBALS:
        frame = frame.f_back
    return frame


_MACHINERY_GLOBALS = globals()


def _warn(message, category):
    import warnings

    frame = _caller()
    if frame is None:
        warnings.warn(message, category)
        return
    module_globals = frame.f_globals
    registry = module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=module_globals.get("__name__"),
        registry=registry,
    )


def _write(stream, text):
    getattr(sys, stream).write(text)


def _open(*args):
    return open(*args)


def _os(name):
    def function(*args, **kwargs):
        import os

        return getattr(os, name)(*args, **kwargs)

    return function


_SANDBOX_OPS = {
    "warn": _warn,
    "write": _write,
    "open": _open,
    **{
        name: _os(name)
        for name in (
            "stat lstat listdir scandir mkdir remove unlink rmdir access chmod utime rename replace getcwd chdir"
        ).split()
    },
}


def _op_on(target, op, args, kwargs):
    import operator

    if op == "getattr":
        return getattr(target, *args)
    if op == "setattr":
        return setattr(target, *args)
    if op == "__call__":
        return target(*args, **kwargs)
    if op == "__next__":
        return next(target)
    if op == "__iter__":
        return iter(target)
    if op in ("__repr__", "__str__", "__format__", "__hash__", "__len__", "__bool__", "__int__", "__float__", "__index__"):
        builtin = {"__repr__": repr, "__str__": str, "__format__": format, "__hash__": hash, "__len__": len,
                   "__bool__": bool, "__int__": int, "__float__": float, "__index__": operator.index}[op]
        return builtin(target, *args)
    if op == "__contains__":
        return args[0] in target
    if op == "__fspath__":
        import os

        return os.fspath(target)
    if op in ("__enter__", "__exit__"):
        return getattr(target, op)(*args)
    name = op.strip("_")
    if name.startswith("r") and hasattr(operator, name[1:]) and name not in ("rshift",):
        return getattr(operator, name[1:])(args[0], target)
    return getattr(operator, name)(target, *args)


def apply(target, op, args, kwargs):
    """Do what CPython asks: an operation on a sandbox object it holds (``target``), or, with no target, on the
    session's files, streams and warnings."""
    if target is None:
        return _SANDBOX_OPS[op](*args, **kwargs)
    return _op_on(target, op, args, kwargs)


# The special methods a sandbox object keeps on CPython's side, when its class has them.
SPECIAL = tuple(
    (
        "__call__ __len__ __iter__ __next__ __contains__ __bool__ __getitem__ __setitem__ __delitem__ __lt__ __le__ "
        "__gt__ __ge__ __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __floordiv__ "
        "__rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __neg__ __pos__ __abs__ __int__ __float__ __index__ "
        "__enter__ __exit__ __fspath__"
    ).split()
)
_special_of_class = {}


def library_parts(obj):
    """A value of numpy's or pandas' leaving the sandbox: ``(kind, parts)`` (src/protocol/library_data.py), or None
    for another object of CPython's."""
    return _apply(_ref_of(obj), "library_parts", ())


def library_value(kind, parts):
    """A value of numpy's or pandas' from the host, made by the session's CPython from its parts."""
    if _apply is None:
        library = kind.partition(".")[0]
        raise TypeError(f"a {kind} needs {library} in the sandbox: RustInterpreter(packages=[{library!r}])")
    return _apply(None, "library_value", (kind, parts))


def special_of(obj):
    cls = type(obj)
    found = _special_of_class.get(cls)
    if found is None:
        found = _special_of_class[cls] = tuple(name for name in SPECIAL if getattr(cls, name, None) is not None)
    return found


def to_pickle(obj):
    """A standard-library value (a date, a Decimal) as pickle bytes for CPython, anything else inside it by
    reference; None when it is not such a value."""
    module = type(obj).__module__.partition(".")[0]
    if module not in _VALUE_MODULES:
        return None
    import io
    import pickle

    refs = []

    class Pickler(pickle.Pickler):
        def persistent_id(self, inner):
            if inner is obj or isinstance(inner, (str, int, float, bytes, bool, type(None), tuple, list, dict)):
                return None
            if isinstance(inner, type) or type(inner).__module__.partition(".")[0] in _VALUE_MODULES:
                return None
            refs.append(inner)
            return len(refs) - 1

    buffer = io.BytesIO()
    Pickler(buffer, protocol=4).dump(obj)
    return buffer.getvalue(), refs


def from_pickle(data, refs):
    import io
    import pickle

    class Unpickler(pickle.Unpickler):
        def persistent_load(self, pid):
            return refs[pid]

    return Unpickler(io.BytesIO(data)).load()
