"""What the host makes of a tool callable: the signature and doc the sandbox shows, its argument checks
(``_tool_types``) and its stand-in (``_stand_ins``), kept by the callable's shape so that a new interpreter with
the same tools makes neither again."""

from __future__ import annotations

import collections
import inspect
import keyword
import threading
import types
from collections.abc import Callable
from typing import Any

from ._names import check_global_name
from ._stand_ins import stand_in_source
from ._tool_types import ArgumentChecks, argument_checks


def tool_signature(func: Callable[..., Any]) -> inspect.Signature | None:
    """The signature sandbox code should see, following ``__signature__`` and partials; None if unknown."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    for parameter in signature.parameters.values():
        if not parameter.name.isidentifier() or keyword.iskeyword(parameter.name):
            return None
    return signature


def describe_tool(name: str, func: Callable[..., Any]) -> tuple[ArgumentChecks | None, str]:
    """What the sandbox needs of one tool: its argument checks, and its stand-in's source (whose signature binds
    a call's arguments, in the sandbox, whether the tool is called by its name or through ``call_tool``)."""
    check_global_name(name, "tool")
    if not callable(func):
        raise TypeError(f"tool {name!r} is not callable (got {type(func).__name__})")
    return _shape(name, func)


# What a tool's signature makes of it (its checks and stand-in source), kept for plain
# functions by everything that decides it. RLM passes new closures of the same functions (`llm_query`) to
# every interpreter it makes: resolving their annotations and writing their stand-ins again for each would
# add to every new session's start, per tool.
_SHAPES: collections.OrderedDict[tuple, tuple] = collections.OrderedDict()
_SHAPES_KEPT = 256
_shapes_lock = threading.Lock()


def _shape(name: str, func: Callable[..., Any]) -> tuple[ArgumentChecks | None, str]:
    key = _shape_key(name, func)
    if key is not None:
        with _shapes_lock:
            shape = _SHAPES.get(key)
            if shape is not None:
                _SHAPES.move_to_end(key)
                return shape
    signature = tool_signature(func)
    shape = (argument_checks(name, func, signature), stand_in_source(name, func, signature))
    if key is not None:
        with _shapes_lock:
            _SHAPES[key] = shape
            while len(_SHAPES) > _SHAPES_KEPT:
                _SHAPES.popitem(last=False)
    return shape


def _shape_key(name: str, func: Callable[..., Any]) -> tuple | None:
    """Everything a plain function's shape depends on (not its closure), or None: not cached."""
    if type(func) is not types.FunctionType or "__signature__" in vars(func) or "__wrapped__" in vars(func):
        return None
    try:
        key = (
            name,
            func.__code__,
            func.__defaults__,
            tuple(sorted((func.__kwdefaults__ or {}).items())),
            tuple(func.__annotations__.items()),
            id(func.__globals__),
            func.__doc__,
            func.__name__,
        )
        hash(key)
    except TypeError:  # an unhashable default or annotation
        return None
    return key
