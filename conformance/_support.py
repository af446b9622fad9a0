"""Small helpers shared by the conformance tests (assertions, recording tools)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from dspy.primitives.code_interpreter import FinalOutput

TWO_FIELDS = [{"name": "answer", "type": "str"}, {"name": "score", "type": "int"}]


def printed_text(result: Any) -> str:
    """Captured print output as one string; the protocol allows ``str`` or a ``list`` of lines."""
    if isinstance(result, list):
        return "\n".join(str(item).rstrip("\n") for item in result)
    assert isinstance(result, str), f"expected printed output as str (or list), got {type(result).__name__}: {result!r}"
    return result


def printed_lines(result: Any) -> list[str]:
    return printed_text(result).splitlines()


def assert_value(result: Any, expected: int | float | bool) -> None:
    """An expression's value may come back as the value itself or as its str() (e.g. 42 or "42")."""
    if isinstance(result, str):
        assert result == str(expected), f"expected {expected!r} or {str(expected)!r}, got {result!r}"
    else:
        assert type(result) is type(expected) and result == expected, (
            f"expected {expected!r} ({type(expected).__name__}) or {str(expected)!r}, got {result!r} ({type(result).__name__})"
        )


def assert_final_output(result: Any, expected: dict[str, Any]) -> None:
    assert isinstance(result, FinalOutput), f"expected dspy FinalOutput, got {type(result).__name__}: {result!r}"
    assert result.output == expected
    for name, value in expected.items():
        assert type(result.output[name]) is type(value), f"field {name!r}: {result.output[name]!r} changed type"


def assert_final_answer(result: Any, final_answer_result_cls: type | None, expected: dict[str, Any]) -> None:
    assert final_answer_result_cls is not None, (
        "the interpreter's module does not export FinalAnswerResult (FINAL family not implemented)"
    )
    assert isinstance(result, final_answer_result_cls), (
        f"expected {final_answer_result_cls.__name__}, got {type(result).__name__}: {result!r}"
    )
    assert isinstance(result.answer, dict), f".answer must be a dict, got {type(result.answer).__name__}"
    assert result.answer == expected
    for name, value in expected.items():
        assert type(result.answer[name]) is type(value), f"field {name!r}: {result.answer[name]!r} changed type"


class RecordingTool:
    """A host tool that records every call as (args, kwargs) and delegates to ``fn``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.__name__ = fn.__name__
        self.__signature__ = inspect.signature(fn)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        return self.fn(*args, **kwargs)


def _add(left: int, right: int) -> dict[str, int]:
    return {"value": left + right}


def add_tool() -> RecordingTool:
    """``add(left, right) -> {"value": left + right}``, recording its calls."""
    return RecordingTool(_add)


def keyword_only_wrapper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``fn`` the way dspy.RLM wraps user tools: ``invoke(**kwargs)`` carrying fn's ``__signature__``.

    Positional calls from sandbox code only reach ``fn`` if the interpreter binds them to parameter names.
    """

    def invoke(**kwargs: Any) -> Any:
        return fn(**kwargs)

    invoke.__name__ = getattr(fn, "__name__", "invoke")
    invoke.__doc__ = getattr(fn, "__doc__", None)
    invoke.__signature__ = inspect.signature(fn)
    return invoke
