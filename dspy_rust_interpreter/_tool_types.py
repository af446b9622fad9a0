"""Host-side checks of tool arguments against the tool's annotations, before the tool runs.

Each supported annotation compiles once (when the tool table is installed) into a ``Check``: a function that
takes the value sandbox code passed and returns the value the tool receives (the same value, or the Enum
member / tuple / list it denotes), or raises ``ArgumentMismatch`` saying what was expected. Annotations this
module does not know accept any plain value: the tool validates those arguments for itself.
"""

from __future__ import annotations

import enum
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Check = Callable[[Any], Any]

# How much of a wrong value an error message quotes.
PREVIEW_CHARS = 40


class ArgumentMismatch(Exception):
    """A value does not fit an annotation. ``where`` is the path inside the argument (``[2]``, ``['k']``)."""

    def __init__(self, expected: str, value: Any, where: str = "") -> None:
        super().__init__(expected)
        self.expected = expected
        self.value = value
        self.where = where

    def describe(self, tool: str, parameter: str) -> str:
        """What sandbox code reads after the tool's name, e.g. ``argument 'k' must be int, got str ('3')``."""
        # The native layer puts "tool 'search' failed: " in front of a host TypeError's message.
        return (
            f"argument {parameter!r}{self.where} must be {self.expected}, "
            f"got {type(self.value).__name__} ({preview(self.value)}); the tool was not called"
        )


def preview(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, bytes, int, float, bool, type(None))) else _shallow_repr(value)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def _shallow_repr(value: Any) -> str:
    # A sandbox container may be huge: never repr it whole just to quote its start.
    size = len(value) if hasattr(value, "__len__") else 0
    return f"a {type(value).__name__} of {size} item{'' if size == 1 else 's'}"


def type_name(annotation: Any) -> str:
    """A short readable name of an annotation for messages and stand-in signatures."""
    if annotation is type(None) or annotation is None:
        return "None"
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return inspect.formatannotation(annotation).replace("typing.", "")


def compile_check(annotation: Any) -> Check | None:
    """The check for ``annotation``, or None when any plain value is accepted (unknown or no annotation)."""
    try:
        return _compile(annotation)
    except _Unsupported:
        return None


class _Unsupported(Exception):
    pass


def _exact(kind: type, expected: str) -> Check:
    def check(value: Any) -> Any:
        if type(value) is kind:
            return value
        raise ArgumentMismatch(expected, value)

    return check


def _check_float(value: Any) -> Any:
    kind = type(value)
    if kind is float or kind is int:
        return value
    raise ArgumentMismatch("float (or int)", value)


def _check_none(value: Any) -> Any:
    if value is None:
        return value
    raise ArgumentMismatch("None", value)


_SIMPLE: dict[Any, Check] = {
    str: _exact(str, "str"),
    # bool is an int subclass in Python, but True passed as a count is almost always a mistake.
    int: _exact(int, "int"),
    float: _check_float,
    bool: _exact(bool, "bool"),
    bytes: _exact(bytes, "bytes"),
    type(None): _check_none,
    None: _check_none,
}

_ANY = {Any, object, inspect.Parameter.empty}


def _compile(annotation: Any) -> Check | None:
    if annotation in _ANY or isinstance(annotation, (str, typing.ForwardRef)):
        # Unresolvable string annotations are documentation only.
        return None
    simple = _SIMPLE.get(annotation) if _hashable(annotation) else None
    if simple is not None:
        return simple
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _compile(args[0])
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is typing.Literal:
        return _literal(args)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum(annotation)
    if typing.is_typeddict(annotation):
        return _typed_dict(annotation)
    if annotation in (list, list) or origin is list:
        return _sequence(list, "list", args[0] if args else None)
    if annotation in (tuple, tuple) or origin is tuple:
        return _tuple(args)
    if annotation in (set, frozenset) or origin in (set, frozenset):
        return _set(origin or annotation, args[0] if args else None)
    if annotation in (dict, dict) or origin is dict:
        return _dict(args[0] if args else None, args[1] if len(args) > 1 else None)
    raise _Unsupported(annotation)


def _hashable(annotation: Any) -> bool:
    try:
        hash(annotation)
    except TypeError:
        return False
    return True


def _item_check(annotation: Any) -> Check | None:
    if annotation is None:
        return None
    return compile_check(annotation)


def _sequence(kind: type, name: str, item: Any) -> Check:
    item_check = _item_check(item)
    expected = f"{name}[{type_name(item)}]" if item_check else name

    def check(value: Any) -> Any:
        # Sandbox code writes lists and tuples interchangeably; the tool gets the kind it declared.
        if type(value) is not list and type(value) is not tuple:
            raise ArgumentMismatch(expected, value)
        if item_check is None:
            return value if type(value) is kind else kind(value)
        return kind(_checked_items(item_check, value))

    return check


def _checked_items(item_check: Check, items: Any) -> list[Any]:
    checked = []
    for index, item in enumerate(items):
        try:
            checked.append(item_check(item))
        except ArgumentMismatch as mismatch:
            raise ArgumentMismatch(mismatch.expected, mismatch.value, f"[{index}]{mismatch.where}") from None
    return checked


def _tuple(args: tuple[Any, ...]) -> Check:
    if not args or (len(args) == 2 and args[1] is Ellipsis):
        return _sequence(tuple, "tuple", args[0] if args else None)
    if args == ((),):  # tuple[()]: the empty tuple
        args = ()
    checks = [compile_check(arg) or (lambda value: value) for arg in args]
    expected = f"tuple[{', '.join(type_name(arg) for arg in args)}]"

    def check(value: Any) -> Any:
        if (type(value) is not tuple and type(value) is not list) or len(value) != len(checks):
            raise ArgumentMismatch(f"{expected} (exactly {len(checks)} items)", value)
        items = []
        for index, (item_check, item) in enumerate(zip(checks, value)):
            try:
                items.append(item_check(item))
            except ArgumentMismatch as mismatch:
                raise ArgumentMismatch(mismatch.expected, mismatch.value, f"[{index}]{mismatch.where}") from None
        return tuple(items)

    return check


def _set(kind: Any, item: Any) -> Check:
    item_check = _item_check(item)
    name = kind.__name__
    expected = f"{name}[{type_name(item)}]" if item_check else name

    def check(value: Any) -> Any:
        if type(value) not in (set, frozenset, list, tuple):
            raise ArgumentMismatch(expected, value)
        items = value if item_check is None else _checked_items(item_check, value)
        return kind(items)

    return check


def _dict(key: Any, item: Any) -> Check:
    key_check, item_check = _item_check(key), _item_check(item)
    expected = f"dict[{type_name(key)}, {type_name(item)}]" if key_check or item_check else "dict"

    def check(value: Any) -> Any:
        if type(value) is not dict:
            raise ArgumentMismatch(expected, value)
        if key_check is None and item_check is None:
            return value
        checked = {}
        for k, v in value.items():
            try:
                k = key_check(k) if key_check else k
            except ArgumentMismatch as mismatch:
                raise ArgumentMismatch(f"a key of type {mismatch.expected}", mismatch.value, f" key {preview(k)}") from None
            try:
                checked[k] = item_check(v) if item_check else v
            except ArgumentMismatch as mismatch:
                raise ArgumentMismatch(mismatch.expected, mismatch.value, f"[{preview(k)}]{mismatch.where}") from None
        return checked

    return check


def _union(members: tuple[Any, ...]) -> Check | None:
    checks = []
    for member in members:
        member_check = compile_check(member)
        if member_check is None:
            return None  # one member accepts anything: so does the union
        checks.append(member_check)
    expected = " or ".join(type_name(member) for member in members)

    def check(value: Any) -> Any:
        nested = None
        for member_check in checks:
            try:
                return member_check(value)
            except ArgumentMismatch as mismatch:
                if mismatch.where:
                    nested = mismatch  # the value had this member's shape: its inner mismatch says most
        raise nested or ArgumentMismatch(expected, value)

    return check


def _literal(values: tuple[Any, ...]) -> Check:
    expected = "one of " + ", ".join(repr(v) for v in values)
    # Compare type too: 1 == True, and 1 == 1.0, but Literal[1] does not mean True.
    allowed = [(type(v), v) for v in values]

    def check(value: Any) -> Any:
        for kind, allowed_value in allowed:
            if type(value) is kind and value == allowed_value:
                return value
        raise ArgumentMismatch(expected, value)

    return check


def _enum(enum_type: type[enum.Enum]) -> Check:
    members = list(enum_type)
    expected = f"one of {', '.join(repr(m.value) for m in members)} ({enum_type.__name__}; a member's name works too)"
    by_value = [(type(m.value), m.value, m) for m in members]
    by_name = {m.name: m for m in members}

    def check(value: Any) -> Any:
        for kind, member_value, member in by_value:
            if type(value) is kind and value == member_value:
                return member
        if type(value) is str and value in by_name:
            return by_name[value]
        raise ArgumentMismatch(expected, value)

    return check


def _typed_dict(typed_dict: type) -> Check:
    try:
        hints = typing.get_type_hints(typed_dict)
    except Exception:  # noqa: BLE001 - unresolvable hints: check the keys only
        hints = dict(getattr(typed_dict, "__annotations__", {}))
    required = frozenset(getattr(typed_dict, "__required_keys__", hints))
    checks = {key: compile_check(hint) for key, hint in hints.items()}
    name = typed_dict.__name__
    keys_text = ", ".join(f"{k!r}{'' if k in required else ' (optional)'}" for k in hints)

    def check(value: Any) -> Any:
        if type(value) is not dict:
            raise ArgumentMismatch(f"a dict ({name} with keys {keys_text})", value)
        missing = [k for k in required if k not in value]
        if missing:
            raise ArgumentMismatch(f"a {name} dict with key(s) {keys_text}; missing {sorted(missing)}", value)
        unknown = [k for k in value if k not in checks]
        if unknown:
            raise ArgumentMismatch(f"a {name} dict with key(s) {keys_text}; unexpected {sorted(map(repr, unknown))}", value)
        checked = {}
        for key, item in value.items():
            key_check = checks[key]
            try:
                checked[key] = key_check(item) if key_check else item
            except ArgumentMismatch as mismatch:
                raise ArgumentMismatch(mismatch.expected, mismatch.value, f"[{key!r}]{mismatch.where}") from None
        return checked

    return check


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


# -- argument checks ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArgumentChecks:
    """Per-parameter checks of one tool, applied to the (args, kwargs) that reach the host."""

    tool: str
    by_position: tuple[tuple[str, Check | None], ...]  # positional parameters, in order
    var_positional: tuple[str, Check] | None
    by_name: Mapping[str, Check | None]  # every parameter a keyword can name
    var_keyword: tuple[str, Check] | None

    def apply(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments the tool receives, or TypeError naming the parameter and what it must be."""
        if args:
            checked_args = []
            positional = self.by_position
            for index, value in enumerate(args):
                if index < len(positional):
                    name, check = positional[index]
                elif self.var_positional is not None:
                    name, check = self.var_positional
                    name = f"{name}[{index - len(positional)}]"
                else:
                    checked_args.append(value)  # too many: the tool itself reports its arity
                    continue
                checked_args.append(value if check is None else self._run(check, value, name))
            args = tuple(checked_args)
        if kwargs:
            checked_kwargs = {}
            by_name = self.by_name
            for name, value in kwargs.items():
                if name in by_name:
                    check = by_name[name]
                elif self.var_keyword is not None:
                    check = self.var_keyword[1]
                else:
                    check = None  # unknown keyword: the tool itself reports it
                checked_kwargs[name] = value if check is None else self._run(check, value, name)
            kwargs = checked_kwargs
        return args, kwargs

    def _run(self, check: Check, value: Any, parameter: str) -> Any:
        try:
            return check(value)
        except ArgumentMismatch as mismatch:
            raise TypeError(mismatch.describe(self.tool, parameter)) from None


def argument_checks(name: str, func: Callable[..., Any], signature: inspect.Signature | None) -> ArgumentChecks | None:
    """The checks for ``func``'s annotated parameters, or None when no parameter has a checkable annotation."""
    if signature is None:
        return None
    hints = _resolved_hints(func, signature)
    by_position: list[tuple[str, Check | None]] = []
    by_name: dict[str, Check | None] = {}
    var_positional = var_keyword = None
    any_check = False
    for parameter in signature.parameters.values():
        check = compile_check(hints.get(parameter.name, parameter.annotation))
        any_check = any_check or check is not None
        if parameter.kind in _POSITIONAL:
            by_position.append((parameter.name, check))
        if parameter.kind is parameter.VAR_POSITIONAL:
            var_positional = (parameter.name, check) if check else None
        elif parameter.kind is parameter.VAR_KEYWORD:
            var_keyword = (parameter.name, check) if check else None
        elif parameter.kind is not parameter.POSITIONAL_ONLY:
            by_name[parameter.name] = check
    if not any_check:
        return None
    return ArgumentChecks(name, tuple(by_position), var_positional, by_name, var_keyword)


def _resolved_hints(func: Callable[..., Any], signature: inspect.Signature) -> dict[str, Any]:
    """Annotations with strings (``from __future__ import annotations``) resolved where possible."""
    pending = {p.name: p.annotation for p in signature.parameters.values() if isinstance(p.annotation, str)}
    if not pending:
        return {}
    target = inspect.unwrap(func.func if isinstance(func, functools.partial) else func)
    namespace = dict(vars(typing))
    namespace.update(getattr(target, "__globals__", {}) or {})
    resolved = {}
    for name, text in pending.items():
        try:
            resolved[name] = eval(text, namespace)  # noqa: S307 - the host's own annotation, in its own module
        except Exception:  # noqa: BLE001 - unresolvable: documentation only
            continue
    return resolved


# -- stand-in source ---------------------------------------------------------------------------------------
