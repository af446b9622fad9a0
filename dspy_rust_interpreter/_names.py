"""The names sandbox code can use for tools and variables: identifiers that are not keywords and do not hide the
sandbox's own globals."""

from __future__ import annotations

import keyword

from ._errors import InvalidNameError

# Globals the sandbox owns; a tool or variable of that name would hide them.
RESERVED_NAMES = frozenset({"SUBMIT", "FINAL", "FINAL_VAR", "call_tool", "print", "__builtins__", "__name__"})


def check_global_name(name: object, what: str) -> str:
    """Reject names sandbox code could not call, or that would shadow the sandbox's own globals."""
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidNameError(f"Invalid {what} name: {name!r} is not a valid Python identifier")
    if keyword.iskeyword(name):
        raise InvalidNameError(f"Invalid {what} name: {name!r} is a Python keyword")
    if name in RESERVED_NAMES:
        raise InvalidNameError(
            f"Invalid {what} name: {name!r} is reserved by the interpreter ({', '.join(sorted(RESERVED_NAMES))})"
        )
    return name
