"""What dspy reads off an interpreter beyond the protocol's methods, across its versions (3.3, 3.4, and main's
newer API where it is published): the capability flags, the Flex authoring notes, and ``prepare_inputs``."""

from __future__ import annotations

from typing import Any

__all__ = ["FLEX_EXECUTION_INSTRUCTIONS", "capabilities", "prepare_inputs"]

FLEX_EXECUTION_INSTRUCTIONS = (
    "The program's code runs in a sandboxed Python 3 interpreter (RustPython) in a process of its own: the "
    "standard library's pure modules are there, the host's files, network, environment and processes are not. "
    "Predictors and tools are reached through the dspy bridge; everything else (control flow, string work, "
    "arithmetic, json, re) runs in the sandbox. Values passed to and from predictors and tools must be plain "
    "data: str, int, float, bool, None, lists, tuples, dicts, sets."
)


def capabilities() -> Any:
    """The flags of ``dspy.InterpreterCapability`` we declare, where the installed dspy has them: FACADE_DSPY
    (the sandbox hosts dspy's bridged facade: sub-predictors run on the host). Not SUB_DSPY: that promises a
    real ``import dspy`` in the sandbox, and dspy (with litellm, pydantic, ...) does not run on RustPython.
    None where dspy has no capability flags (3.3, 3.4, main since it dropped them)."""
    flags = getattr(_dspy(), "InterpreterCapability", None)
    return getattr(flags, "FACADE_DSPY", None) if flags is not None else None


def prepare_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs as the sandbox gets them (dspy's main branch calls this once per run, before anything else):
    a ``dspy.Image`` anywhere in dicts, lists and tuples becomes its URL or data URI, a str the code can pass to
    ``llm_query(..., images=[...])``. A new dict: the caller's values are not changed."""
    image_type = getattr(_dspy(), "Image", None)
    if image_type is None:
        return dict(inputs)
    return {name: _with_image_urls(value, image_type) for name, value in inputs.items()}


def _dspy() -> Any:
    """The dspy module, or None where dspy is not installed (the package works without it)."""
    try:
        import dspy
    except ImportError:
        return None
    return dspy


def _with_image_urls(value: Any, image_type: type, depth: int = 0) -> Any:
    if isinstance(value, image_type):
        return value.url
    if depth > 100:  # deeper than any input: the conversion of the value itself says what is wrong
        return value
    if type(value) is dict:
        return {key: _with_image_urls(item, image_type, depth + 1) for key, item in value.items()}
    if type(value) is list:
        return [_with_image_urls(item, image_type, depth + 1) for item in value]
    if type(value) is tuple:
        return tuple(_with_image_urls(item, image_type, depth + 1) for item in value)
    return value
