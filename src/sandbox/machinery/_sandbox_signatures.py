"""``__text_signature__`` of the sandbox's builtin callables, as CPython 3.14 reports it (its table is
``_sandbox_signature_table``), so ``inspect.signature`` answers as CPython's: ``sorted`` has
``(iterable, /, *, key=None, reverse=False)``, ``max`` has none (CPython raises). The VM puts ``text_signature``
in place of the attribute on the types of builtin functions and method descriptors; a callable CPython does not
have keeps RustPython's."""

import sys

_table = None


def _signatures():
    global _table
    if _table is None:
        from _sandbox_signature_table import TEXT_SIGNATURES

        _table = TEXT_SIGNATURES
    return _table


def _class_key(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _key(obj):
    """CPython's key for a builtin callable: ``module.name`` of a function, ``module.Type.name`` of a method."""
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return None
    owner = getattr(obj, "__objclass__", None)
    if isinstance(owner, type):
        return f"{_class_key(owner)}.{name}"
    bound = getattr(obj, "__self__", None)
    if isinstance(bound, type(sys)):
        return f"{bound.__name__}.{name}"
    if isinstance(bound, type):
        return f"{_class_key(bound)}.{name}"
    if bound is not None:
        return f"{_class_key(type(bound))}.{name}"
    module = getattr(obj, "__module__", None)
    if isinstance(module, str):
        return f"{module}.{name}"
    # A function of RustPython's with no module: found where it is defined.
    for module_name in ("builtins", "math", "_bisect", "sys", "time", "itertools", "operator", "functools"):
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, name, None) is obj:
            return f"{module_name}.{name}"
    return None


def _unbound(text, obj):
    """CPython's text for a module's function names the module first (``($module, iterable, /)``), and inspect
    drops it because the function's ``__self__`` is the module; RustPython's functions have no ``__self__``, so
    the text leaves it out here."""
    if text is None or not text.startswith("($module") or isinstance(getattr(obj, "__self__", None), type(sys)):
        return text
    for bound, rest in (("($module, /, ", "("), ("($module, /)", "()"), ("($module, ", "("), ("($module)", "()")):
        if text.startswith(bound):
            return rest + text[len(bound) :]
    return text


def text_signature(original):
    """The getter put in place of ``original``, the descriptor of ``__text_signature__`` on a type."""

    def get(obj):
        table = _signatures()
        key = _key(obj)
        if key is not None and key in table:
            return _unbound(table[key], obj)
        return original.__get__(obj, type(obj))

    return property(get)
