"""Host side of the tool bridge: validating tool names and describing tools to the native layer."""

from __future__ import annotations

import inspect
import keyword
from typing import Any, Callable, Mapping

# Globals the sandbox owns; a tool or variable of that name would hide them.
RESERVED_NAMES = frozenset({"SUBMIT", "FINAL", "FINAL_VAR", "call_tool", "print", "__builtins__", "__name__"})

# What the native layer needs per tool: the name, the callable, the parameter names that positional
# arguments bind to (None: pass positional arguments through unchanged), and the source of the sandbox-side
# stand-in (None: a generic `def name(*args, **kwargs)`); a stand-in's source defines `def <name>(...)` whose
# body returns `__invoke(<name>, args_tuple, kwargs_dict)`.
ToolSpec = tuple[str, Callable[..., Any], "tuple[str, ...] | None", "str | None"]


def check_global_name(name: object, what: str) -> str:
    """Reject names sandbox code could not call, or that would shadow the sandbox's own globals."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{what} name {name!r} is not a valid Python identifier")
    if name in RESERVED_NAMES:
        raise ValueError(f"{what} name {name!r} is reserved by the interpreter ({', '.join(sorted(RESERVED_NAMES))})")
    return name


def positional_parameter_names(func: Callable[..., Any]) -> tuple[str, ...] | None:
    """The parameter names positional arguments bind to, following ``__signature__``.

    dspy's RLM wraps user tools as ``invoke(**kwargs)`` carrying the original function's ``__signature__``:
    such a tool only works if positional arguments are turned into keyword arguments by that signature.
    Positional-only or ``*args`` parameters mean the callable takes positional arguments itself: None.
    """
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    names = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.VAR_POSITIONAL):
            return None
        if parameter.kind is parameter.POSITIONAL_OR_KEYWORD:
            names.append(parameter.name)
    return tuple(names)


def build_tool_specs(tools: Mapping[str, Callable[..., Any]]) -> list[ToolSpec]:
    specs = []
    for name, func in tools.items():
        check_global_name(name, "tool")
        if not callable(func):
            raise TypeError(f"tool {name!r} is not callable (got {type(func).__name__})")
        specs.append((name, func, positional_parameter_names(func), None))
    return specs
