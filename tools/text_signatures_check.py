"""How far the sandbox's ``__text_signature__`` of its builtins is from CPython 3.14's (the table
src/sandbox/machinery/_sandbox_signature_table.py, written by tools/text_signatures.py).

    python tools/text_signatures_check.py               # counts, and a few differences of each kind
    python tools/text_signatures_check.py --examples 40 # more of them
    python tools/text_signatures_check.py --all         # every difference

Each key of the table is resolved in a sandbox session (the longest prefix that imports as a module, then
``getattr`` along the rest; failing that, a type of that ``module.qualname`` found through
``object.__subclasses__()``), and its ``getattr(obj, '__text_signature__', None)`` compared with the table's.
Also counted: resolved objects whose key, computed back from the object itself (its ``__module__`` and
``__qualname__``, or those of the type it belongs to), is not the table's (where the sandbox could not find its
entry by the object alone).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "src" / "sandbox" / "machinery" / "_sandbox_signature_table.py"

# Run in the sandbox with KEYS bound: a JSON list of [key, status, signature, key computed from the object].
PROBE = r"""
import importlib, json, types

def _modules_of(keys):
    names = set()
    for key in keys:
        parts = key.split(".")
        for end in range(1, len(parts)):
            names.add(".".join(parts[:end]))
    found = {}
    for name in sorted(names):
        try:
            found[name] = importlib.import_module(name)
        except BaseException:
            pass
    return found

def _types_by_key():
    seen, stack = {}, [object]
    while stack:
        cls = stack.pop()
        if id(cls) in seen:
            continue
        seen[id(cls)] = cls
        try:
            stack.extend(type.__subclasses__(cls))
        except BaseException:
            pass
    by_key = {}
    for cls in seen.values():
        try:
            by_key.setdefault(f"{cls.__module__}.{cls.__qualname__}", cls)
        except BaseException:
            pass
    return by_key

def _walk(obj, names):
    for name in names:
        obj = getattr(obj, name)
    return obj

def _resolve(key, modules, by_key):
    parts = key.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = modules.get(".".join(parts[:end]))
        if module is not None:
            try:
                return True, _walk(module, parts[end:])
            except BaseException:
                break
    for end in range(len(parts), 0, -1):
        cls = by_key.get(".".join(parts[:end]))
        if cls is not None:
            try:
                return True, _walk(cls, parts[end:])
            except BaseException:
                return False, None
    return False, None

def _own_key(obj):
    try:
        if isinstance(obj, type):
            return f"{obj.__module__}.{obj.__qualname__}"
        owner = getattr(obj, "__objclass__", None)
        if owner is None:
            owner = getattr(obj, "__self__", None)
            if owner is None or isinstance(owner, types.ModuleType):
                return f"{obj.__module__}.{obj.__qualname__}"
            if not isinstance(owner, type):
                owner = type(owner)
        return f"{owner.__module__}.{owner.__qualname__}.{obj.__name__}"
    except BaseException as error:
        return f"<{type(error).__name__}>"

_modules = _modules_of(KEYS)
_by_key = _types_by_key()
_rows = []
for _key in KEYS:
    _ok, _obj = _resolve(_key, _modules, _by_key)
    if not _ok:
        _rows.append([_key, "missing", None, None])
        continue
    try:
        _sig = getattr(_obj, "__text_signature__", None)
        _status = "ok" if _sig is None or isinstance(_sig, str) else "odd"
        _sig = _sig if _status == "ok" else repr(_sig)
    except BaseException as _error:
        _status, _sig = "raises", f"{type(_error).__name__}: {_error}"
    _rows.append([_key, _status, _sig, _own_key(_obj)])
json.dumps(_rows)
"""


def load_table() -> dict[str, str | None]:
    tree = ast.parse(TABLE.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TEXT_SIGNATURES" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"no TEXT_SIGNATURES in {TABLE}")


def probe(keys: list[str]) -> list[list]:
    from dspy_rust_interpreter import RustInterpreter

    interpreter = RustInterpreter()
    try:
        result = interpreter.execute(PROBE, variables={"KEYS": keys})
    finally:
        interpreter.shutdown()
    return json.loads(result)


def kind(expected: str | None, status: str, got: str | None) -> str:
    if status == "missing":
        return "not in the sandbox"
    if status != "ok":
        return f"__text_signature__ {status}"
    if got == expected:
        return "same"
    if got is None:
        return "differ: sandbox None, CPython a signature"
    if expected is None:
        return "differ: sandbox a signature, CPython None"
    return "differ: both signatures"


def own_key_kind(key: str, own: str) -> str:
    if own.startswith("None."):
        return "its __module__ is None"
    if own.rpartition(".")[2] == key.rpartition(".")[2]:
        owner, table_owner = own.rpartition(".")[0], key.rpartition(".")[0]
        if owner.rpartition(".")[2] == table_owner.rpartition(".")[2]:
            return "another module in __module__"
        return "found on another type (inherited, or a different class)"
    return "other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5, help="differences shown of each kind")
    parser.add_argument("--all", action="store_true", help="show every difference")
    args = parser.parse_args()

    table = load_table()
    rows = probe(list(table))
    kinds: dict[str, list[tuple[str, str | None, str | None]]] = {}
    own_keys: list[tuple[str, str]] = []
    for key, status, got, own in rows:
        kinds.setdefault(kind(table[key], status, got), []).append((key, table[key], got))
        if status != "missing" and own != key:
            own_keys.append((key, own))

    total = len(table)
    differ = sum(len(v) for k, v in kinds.items() if k.startswith("differ"))
    print(
        f"{total} entries in {TABLE.name} ({sum(v is not None for v in table.values())} signatures, "
        f"{sum(v is None for v in table.values())} None)"
    )
    for name in sorted(kinds, key=lambda k: (k != "same", k)):
        print(f"  {len(kinds[name]):5}  {name}")
    print(f"  {differ:5}  differ in all ({differ / total:.0%}); resolved: {total - len(kinds.get('not in the sandbox', []))}")
    print(f"  {len(own_keys):5}  resolved, but the key computed from the object is not the table's:")
    for name, count in Counter(own_key_kind(key, own) for key, own in own_keys).most_common():
        print(f"  {count:9}  {name}")

    shown = None if args.all else args.examples
    for name in sorted(kinds):
        if name == "same":
            continue
        print(f"\n{name}:")
        for key, expected, got in kinds[name][:shown]:
            print(f"  {key}\n      CPython: {expected!r}\n      sandbox: {got!r}")
    if own_keys:
        print("\nkey computed from the object differs:")
        for key, own in own_keys[:shown]:
            print(f"  {key}  <-  {own}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
