"""Shared fixtures for the dspy end-to-end tests.

Every test that asks for the ``interpreter_factory`` fixture runs once per interpreter class under test.

* By default that is ``dspy_rust_interpreter:RustInterpreter``.
* ``E2E_INTERPRETER=module:Class`` replaces it; a comma-separated list runs the suite against each, e.g.
  ``E2E_INTERPRETER=dspy.primitives.local_interpreter:LocalInterpreter`` (real CPython in a worker
  subprocess, useful to prove the tests themselves are right).
* If the class cannot be imported the tests fail with the import error as the reason.

The language models are scripted (``dspy.utils.DummyLM`` plus a tiny callable sub-LM), so the suite runs
offline and deterministically.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from typing import Any

import dspy
import pytest
from dspy.primitives.code_interpreter import CodeInterpreter, CodeInterpreterError
from dspy.utils.dummies import DummyLM

DEFAULT_INTERPRETER = "dspy_rust_interpreter:RustInterpreter"


# ---------------------------------------------------------------------------------------------------------
# Which interpreter class(es) to test
# ---------------------------------------------------------------------------------------------------------


def _interpreter_specs() -> list[str]:
    raw = os.environ.get("E2E_INTERPRETER", "").strip()
    specs = [part.strip() for part in raw.split(",") if part.strip()]
    return specs or [DEFAULT_INTERPRETER]


def load_interpreter_class(spec: str) -> Any:
    """Resolve ``"package.module:Name"`` (or ``"package.module.Name"``) to the named object."""
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
    else:
        module_name, _, attr = spec.rpartition(".")
    if not module_name or not attr:
        raise ValueError(f"interpreter spec must look like 'module:Class', got {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _spec_id(spec: str) -> str:
    return spec.replace(":", ".").rsplit(".", 1)[-1]


@pytest.fixture(params=_interpreter_specs(), ids=_spec_id)
def interpreter_factory(request: pytest.FixtureRequest) -> Callable[[], CodeInterpreter]:
    """The zero-argument interpreter factory under test (an interpreter class)."""
    spec = request.param
    try:
        factory = load_interpreter_class(spec)
    except Exception as exc:  # ImportError, AttributeError, a broken extension module, ...
        pytest.fail(f"cannot load interpreter {spec!r}: {type(exc).__name__}: {exc}")
    if not callable(factory):
        pytest.fail(f"{spec!r} is not callable")
    return factory


class TrackingFactory:
    """Wraps an interpreter factory, recording every interpreter it makes.

    RLM reads ``execution_instructions`` off the *factory* object, so the wrapper forwards it.
    """

    def __init__(self, factory: Callable[[], CodeInterpreter]):
        self._factory = factory
        self.created: list[CodeInterpreter] = []
        instructions = getattr(factory, "execution_instructions", None)
        if isinstance(instructions, str):
            self.execution_instructions = instructions

    def __call__(self) -> CodeInterpreter:
        interpreter = self._factory()
        assert isinstance(interpreter, CodeInterpreter), f"{interpreter!r} is not a dspy CodeInterpreter"
        self.created.append(interpreter)
        return interpreter

    def assert_all_shut_down(self) -> None:
        """Every interpreter handed out must have been shut down (shutdown is terminal per the contract)."""
        assert self.created, "the factory was never called"
        for interpreter in self.created:
            with pytest.raises(CodeInterpreterError):
                interpreter.execute("1 + 1")


@pytest.fixture
def tracking_factory(interpreter_factory: Callable[[], CodeInterpreter]) -> TrackingFactory:
    return TrackingFactory(interpreter_factory)


# ---------------------------------------------------------------------------------------------------------
# Scripted language models
# ---------------------------------------------------------------------------------------------------------


class _Script:
    """Iterator over scripted LM answers that fails loudly (instead of inventing an answer) when exhausted.

    DummyLM keeps a non-list ``answers`` object as-is and calls ``next()`` on it for every completion.
    """

    def __init__(self, answers: Iterable[dict[str, Any]], name: str):
        self._answers = list(answers)
        self._next = 0
        self._name = name

    def __iter__(self) -> _Script:
        return self

    def __next__(self) -> dict[str, Any]:
        if self._next >= len(self._answers):
            raise AssertionError(
                f"scripted LM {self._name!r} exhausted after {len(self._answers)} answers: the program made "
                "more LM calls than the test scripted"
            )
        answer = self._answers[self._next]
        self._next += 1
        return answer

    @property
    def consumed(self) -> int:
        return self._next

    @property
    def remaining(self) -> int:
        return len(self._answers) - self._next


def scripted_lm(answers: Iterable[dict[str, Any]], *, adapter: Any = None, name: str = "main") -> DummyLM:
    """A DummyLM that returns ``answers`` in order, formatted for ``adapter`` (ChatAdapter by default)."""
    lm = DummyLM([], adapter=adapter)
    lm.answers = _Script(answers, name)
    return lm


def rlm_step(code: str, reasoning: str = "Next step.") -> dict[str, str]:
    """One scripted RLM action: reasoning plus a fenced Python block (as a real model would write it)."""
    return {"reasoning": reasoning, "code": f"```python\n{code.strip()}\n```"}


class ScriptedSubLM:
    """Stand-in for ``sub_lm`` used by ``llm_query``: a callable returning ``[text]`` per prompt.

    RLM's ``llm_query`` accepts any callable whose result is a non-empty list of strings. ``responder`` maps
    a prompt to the reply; every prompt is recorded.
    """

    def __init__(self, responder: Callable[[str], str]):
        self._responder = responder
        self.prompts: list[str] = []

    def __call__(self, prompt: str | None = None, **kwargs: Any) -> list[str]:
        assert isinstance(prompt, str), f"sub-LM expected a prompt string, got {prompt!r}"
        self.prompts.append(prompt)
        return [self._responder(prompt)]


@pytest.fixture
def make_lm() -> Callable[..., DummyLM]:
    return scripted_lm


@pytest.fixture
def step() -> Callable[..., dict[str, str]]:
    return rlm_step


@pytest.fixture
def make_sub_lm() -> Callable[[Callable[[str], str]], ScriptedSubLM]:
    return ScriptedSubLM


@pytest.fixture
def chat_adapter() -> dspy.ChatAdapter:
    """ChatAdapter without its silent JSONAdapter retry, so a parse failure cannot eat a scripted answer."""
    return dspy.ChatAdapter(use_json_adapter_fallback=False)
