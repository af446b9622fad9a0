"""A tool's stand-in: the sandbox function generated from the host callable's ``inspect.signature`` and docstring,
so ``help(search)``, ``search.__doc__`` and ``inspect.signature(search)`` work in the sandbox, and a call with the
wrong arity fails with the VM's own TypeError before anything crosses to the host. Its body forwards the bound
arguments to ``__invoke(name, args, kwargs)`` (see src/sandbox/bridge/tools.rs), which returns the result, or a
lazy iterator over a stream the host keeps.

The source is built from validated identifiers and ``repr()`` of strings and plain literals only, so no
host-controlled text (docstrings, default values, annotations) can inject code into the sandbox.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._tool_types import type_name

# Defaults longer than this (as source text) are shown in the stand-in by a short description instead.
MAX_DEFAULT_SOURCE = 200
MAX_DEFAULT_SHOWN = 80


def stand_in_source(name: str, func: Callable[..., Any], signature: inspect.Signature | None) -> str:
    """The sandbox source defining ``def <name>(...)``: the tool's signature and docstring, forwarding."""
    doc = tool_doc(func) or f"Host tool {name!r}."
    faithful = signature is not None and _plan_call(signature) is not None
    used = {name, *(signature.parameters if signature is not None else ())}
    helpers = _helper_names(used)
    lines = _prelude(helpers)
    if faithful:
        assert signature is not None
        lines += _faithful_def(name, signature, doc, helpers)
    else:
        lines += [
            f"def {name}(*args, **kwargs):",
            f"    {doc!r}",
            f"    return {helpers['call']}({name!r}, args, kwargs)",
        ]
    return "\n".join(lines) + "\n"


def _helper_names(used: set[str]) -> dict[str, str]:
    # Helpers live in the stand-in's own namespace, next to the tool's name and its parameters: pick a
    # prefix none of those start with, so a tool or parameter can never shadow a helper.
    prefix, n = "_tool_", 0
    while any(u.startswith(prefix) for u in used):
        n += 1
        prefix = f"_tool{n}_"
    return {key: prefix + key for key in ("call", "Default", "r", "kw")}


def _prelude(h: dict[str, str]) -> list[str]:
    # `__invoke` and `__Default` are made once in the sandbox (src/sandbox/bridge/tools.rs): a stand-in's source is
    # its def and these names.
    return [f"{h['call']} = __invoke", f"{h['Default']} = __Default"]


@dataclass(frozen=True)
class _CallPlan:
    positional: tuple[str, ...]  # passed positionally, in order
    var_positional: str | None
    keyword: tuple[str, ...]  # passed by keyword
    var_keyword: str | None


def _plan_call(signature: inspect.Signature) -> _CallPlan | None:
    """How the stand-in forwards its parameters; None when only a generic stand-in forwards faithfully."""
    params = list(signature.parameters.values())
    has_var_positional = any(p.kind is p.VAR_POSITIONAL for p in params)
    positional, keyword_names = [], []
    var_positional = var_keyword = None
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            var_positional = p.name
        elif p.kind is p.VAR_KEYWORD:
            var_keyword = p.name
        elif p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and has_var_positional):
            # Passed positionally (they must precede *args): a default the host applies cannot be left out.
            if p.default is not p.empty and not _is_plain_literal(p.default):
                return None
            positional.append(p.name)
        else:
            keyword_names.append(p.name)
    return _CallPlan(tuple(positional), var_positional, tuple(keyword_names), var_keyword)


def _is_plain_literal(value: Any, depth: int = 0) -> bool:
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes):
        return kind not in (str, bytes) or len(value) <= MAX_DEFAULT_SOURCE
    if kind is float:
        return math.isfinite(value)  # repr(inf) is not a literal
    if kind in (list, tuple) and depth < 3 and len(value) <= 20:
        return all(_is_plain_literal(item, depth + 1) for item in value)
    if kind is dict and depth < 3 and len(value) <= 20:
        return all(_is_plain_literal(k, depth + 1) and _is_plain_literal(v, depth + 1) for k, v in value.items())
    return False


def _faithful_def(name: str, signature: inspect.Signature, doc: str, h: dict[str, str]) -> list[str]:
    plan = _plan_call(signature)
    assert plan is not None
    parameters, host_defaults = _parameter_list(signature, h)
    returns = signature.return_annotation
    arrow = "" if returns is signature.empty else f" -> {_annotation_text(returns)!r}"
    args_parts = [*plan.positional, *([f"*{plan.var_positional}"] if plan.var_positional else [])]
    args_text = "(" + "".join(f"{part}, " for part in args_parts) + ")"
    kw_parts = [f"{k!r}: {k}" for k in plan.keyword] + ([f"**{plan.var_keyword}"] if plan.var_keyword else [])
    kw_text = "{" + ", ".join(kw_parts) + "}"
    lines = [f"def {name}({parameters}){arrow}:", f"    {doc!r}"]
    if host_defaults:
        lines += [
            f"    {h['kw']} = {kw_text}",
            f"    for {h['r']} in {tuple(host_defaults)!r}:",
            f"        if {h['kw']}[{h['r']}].__class__ is {h['Default']}:",
            f"            del {h['kw']}[{h['r']}]",
            f"    return {h['call']}({name!r}, {args_text}, {h['kw']})",
        ]
    else:
        lines.append(f"    return {h['call']}({name!r}, {args_text}, {kw_text})")
    return lines


def _parameter_list(signature: inspect.Signature, h: dict[str, str]) -> tuple[str, list[str]]:
    """The parameter list as source, and the names whose default the host applies itself."""
    parts: list[str] = []
    host_defaults: list[str] = []
    previous_kind = None
    for p in signature.parameters.values():
        if previous_kind is p.POSITIONAL_ONLY and p.kind is not p.POSITIONAL_ONLY:
            parts.append("/")
        if p.kind is p.KEYWORD_ONLY and previous_kind not in (p.KEYWORD_ONLY, p.VAR_POSITIONAL):
            parts.append("*")
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.annotation is not p.empty:
            # Annotations cross as strings: documentation for help() and inspect, never evaluated there.
            text += f": {_annotation_text(p.annotation)!r}"
        if p.default is not p.empty:
            if _is_plain_literal(p.default):
                default = repr(p.default)
            else:
                host_defaults.append(p.name)
                default = f"{h['Default']}({_default_text(p.default)!r})"
            text += f" = {default}" if p.annotation is not p.empty else f"={default}"
        parts.append(text)
        previous_kind = p.kind
    if previous_kind is inspect.Parameter.POSITIONAL_ONLY:
        parts.append("/")
    return ", ".join(parts), host_defaults


def _annotation_text(annotation: Any) -> str:
    return annotation if isinstance(annotation, str) else type_name(annotation)


def _default_text(default: Any) -> str:
    try:
        text = repr(default)
    except Exception:  # noqa: BLE001 - a broken repr: describe by type
        text = f"<{type(default).__name__}>"
    return text if len(text) <= MAX_DEFAULT_SHOWN else text[: MAX_DEFAULT_SHOWN - 3] + "..."


# -- the table the native layer installs -------------------------------------------------------------------


def tool_doc(func: Callable[..., Any]) -> str | None:
    target = func.func if isinstance(func, functools.partial) else func
    try:
        return inspect.getdoc(target)
    except Exception:  # noqa: BLE001 - a broken __doc__ property: no docstring
        return None
