"""Write src/sandbox/machinery/_sandbox_signature_table.py: CPython 3.14's ``__text_signature__`` of its C callables.

    /root/.cache/dspy-rust-interpreter/cpython-3.14/python3.14 tools/text_signatures.py

(the reference CPython, tools/reference_python.py). ``inspect.signature`` of a builtin parses its
``__text_signature__``; RustPython's differ from CPython's, so the sandbox answers from this table instead.

What is walked: the builtin functions of ``builtins`` and of the C modules in ``MODULES``; the C types found in
those modules and every C type whose ``__module__`` is one of them (found through ``object.__subclasses__()``,
which reaches ``dict_keys``, ``list_iterator``, ``re.Pattern`` and the like); of each type, itself, and the C
callables of its own ``__dict__`` (methods, class methods, static methods, slot wrappers, ``__new__``,
``__init__``). Python functions and classes are left out: they have real signatures. Keys are what the sandbox
can compute from the object: ``module.qualname`` for a function (``builtins.sorted``, ``_operator.add``), the
type's ``module.qualname`` for a type (``builtins.range``) and that followed by the attribute's name for a
callable of a type (``builtins.str.split``, ``collections.deque.index``). A value is the string CPython
reports, or None where CPython reports None.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "sandbox" / "machinery" / "_sandbox_signature_table.py"

# The C modules models commonly reach (directly or through the Python module that wraps them).
MODULES = (
    "builtins",
    "sys",
    "math",
    "cmath",
    "itertools",
    "functools",
    "_functools",
    "operator",
    "_operator",
    "collections",
    "_collections",
    "heapq",
    "_heapq",
    "bisect",
    "_bisect",
    "json",
    "_json",
    "re",
    "_sre",
    "datetime",
    "_datetime",
    "time",
    "random",
    "_random",
    "array",
    "struct",
    "_struct",
    "binascii",
    "zlib",
    "hashlib",
    "_hashlib",
    "_md5",
    "_sha1",
    "_sha2",
    "_sha3",
    "_blake2",
    "statistics",
    "_statistics",
    "unicodedata",
    "decimal",
    "_decimal",
    "io",
    "_io",
    "os",
    "posix",
    "_string",
    "string",
    "csv",
    "_csv",
    "warnings",
    "_warnings",
    "contextvars",
    "_contextvars",
    "weakref",
    "_weakref",
    "abc",
    "_abc",
    "types",
    "typing",
    "_typing",
)

# CPython's own machinery, which no program meets by name (``keys``, ``items`` and ``values`` are the iterators of
# ``hamt``, the mapping under ``contextvars.Context``): left out with their methods.
INTERNAL = {
    "builtins.hamt",
    "builtins.hamt_array_node",
    "builtins.hamt_bitmap_node",
    "builtins.hamt_collision_node",
    "builtins.items",
    "builtins.keys",
    "builtins.values",
    "builtins.uop_executor",
    "builtins.InstructionSequence",
    "builtins.stderrprinter",
    "builtins.moduledef",
}

# The kinds of C callables recorded. A bound C method (``dict.fromkeys``, ``str.__new__``) is a
# ``builtin_function_or_method``; 3.14 gives methods of heap types their own ``builtin_method`` kind.
C_CALLABLES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
)
FUNCTIONS = (types.BuiltinFunctionType,)


def c_kinds() -> tuple[type, ...]:
    import re

    bound = type(re.compile("").match)
    return (*C_CALLABLES, bound) if bound not in C_CALLABLES else C_CALLABLES


def is_c_type(cls: type) -> bool:
    """A type made in C, not by a class statement or ``type(...)`` (those carry Python functions or have a
    Python metaclass)."""
    if "__firstlineno__" in cls.__dict__ or (type(cls) is not cls and not is_c_type(type(cls))):
        return False
    return not any(isinstance(value, (types.FunctionType, property)) for value in cls.__dict__.values())


def plain_name(name: object) -> bool:
    return isinstance(name, str) and all(part.isidentifier() for part in name.split("."))


def type_key(cls: type) -> str | None:
    module, qualname = cls.__module__, cls.__qualname__
    if not (plain_name(module) and plain_name(qualname)):
        return None
    return f"{module}.{qualname}"


def all_types() -> list[type]:
    """Every type reachable from ``object`` by ``__subclasses__``."""
    seen: dict[int, type] = {}
    stack = [object]
    while stack:
        cls = stack.pop()
        if id(cls) in seen:
            continue
        seen[id(cls)] = cls
        stack.extend(type.__subclasses__(cls))
    return list(seen.values())


def collect() -> dict[str, str | None]:
    kinds = c_kinds()
    modules = []
    for name in MODULES:
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            print(f"skipped {name}: not importable", file=sys.stderr)
    names = {module.__name__ for module in modules}
    table: dict[str, str | None] = {}

    def record(key: str, obj: object) -> None:
        value = getattr(obj, "__text_signature__", None)
        if value is not None and not isinstance(value, str):
            return
        if table.setdefault(key, value) != value:
            print(f"conflict at {key}: {table[key]!r} / {value!r}", file=sys.stderr)

    # A module function comes first: a C type of the same key (``_md5.md5``, ``_csv.reader``, the type of what
    # the function makes; ``sys.flags``, the type of that object) is not what the name reaches, and is left out
    # (its methods are kept).
    found_types: dict[int, type] = {}
    for module in modules:
        for attr in dir(module):
            obj = getattr(module, attr, None)
            if isinstance(obj, FUNCTIONS) and isinstance(getattr(obj, "__self__", None), (types.ModuleType, type(None))):
                owner = obj.__module__ or module.__name__
                if plain_name(owner) and plain_name(obj.__qualname__):
                    record(f"{owner}.{obj.__qualname__}", obj)
            elif isinstance(obj, type) and obj.__module__ in names and is_c_type(obj):
                found_types[id(obj)] = obj
    for cls in all_types():
        if isinstance(cls.__module__, str) and cls.__module__ in names and is_c_type(cls):
            found_types[id(cls)] = cls

    for cls in found_types.values():
        key = type_key(cls)
        if key is None or key in INTERNAL:
            continue
        named = getattr(sys.modules.get(cls.__module__), cls.__qualname__, cls)
        if key not in table and named is cls:
            record(key, cls)
        for attr, raw in list(cls.__dict__.items()):
            if not isinstance(raw, (*kinds, staticmethod, classmethod)):
                continue
            try:
                obj = getattr(cls, attr)
            except AttributeError:
                continue
            if isinstance(obj, kinds):
                record(f"{key}.{attr}", obj)
    return dict(sorted(table.items()))


def render(table: dict[str, str | None]) -> str:
    version = ".".join(map(str, sys.version_info[:3]))
    lines = [
        '"""CPython\'s ``__text_signature__`` of its C callables, which the sandbox reports for its builtins (so',
        "``inspect.signature`` answers as CPython's does). Keys: ``module.qualname`` of a function or type, and",
        "``module.Type.name`` of a callable in a type's ``__dict__``; a value is CPython's string, or None where",
        "CPython has none.",
        "",
        f"Written by tools/text_signatures.py run by CPython {version}; do not edit: regenerate with",
        "",
        "    /root/.cache/dspy-rust-interpreter/cpython-3.14/python3.14 tools/text_signatures.py",
        '"""',
        "",
        "TEXT_SIGNATURES = {",
    ]
    lines += [f"    {key!r}: {value!r}," for key, value in table.items()]
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> int:
    if sys.version_info[:2] != (3, 14):
        print("run this with CPython 3.14 (tools/reference_python.py)", file=sys.stderr)
        return 1
    table = collect()
    OUT.write_text(render(table), encoding="utf-8")
    strings = sum(value is not None for value in table.values())
    print(f"{OUT}: {len(table)} entries ({strings} signatures, {len(table) - strings} None)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
