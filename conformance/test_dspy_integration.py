"""End-to-end with dspy (3.3 and later): the sandbox dspy facade (3.4) and dspy.RLM driven by a scripted DummyLM.

These use the interpreter the way RLM does (class as ``interpreter_factory``, ``tools.update``, ``output_fields``,
re-injected inputs, ``shutdown`` at the end).
"""

from __future__ import annotations

import dspy
import pytest
from dspy.primitives.code_interpreter import CodeInterpreterError
from dspy.utils import DummyLM

from ._support import printed_text

pytestmark = pytest.mark.rlm


def _step(code: str) -> dict[str, str]:
    return {"reasoning": "scripted", "code": f"```python\n{code}\n```"}


def _run_rlm(factory, signature: str, steps: list[str], fallback: dict[str, str], tools=None, **inputs):
    lm = DummyLM([_step(code) for code in steps] + [fallback])
    rlm = dspy.RLM(signature, interpreter_factory=factory, tools=tools or [], max_iters=len(steps))
    with dspy.context(lm=lm):
        return rlm(**inputs)


@pytest.mark.needs_dspy("3.4", "the sandbox dspy facade")
def test_dspy_facade_shim_installs_and_imports(interpreter, interpreter_cls):
    from dspy.primitives.facade import FacadeInvocation

    FacadeInvocation(tools={}, interpreter_factory=interpreter_cls, max_predictor_calls=None).install(interpreter)
    assert printed_text(interpreter.execute("import dspy\nprint(callable(dspy.Predict))")).strip() == "True"


def test_rlm_returns_submitted_answer(interpreter_cls):
    steps = ["SUBMIT(answer='42')"]
    pred = _run_rlm(interpreter_cls, "question -> answer", steps, {"answer": "fallback"}, question="q")
    assert pred.answer == "42"


def test_rlm_keeps_state_and_calls_tool_across_iterations(interpreter_cls):
    def add(left: int, right: int) -> dict:
        """Add two integers."""
        return {"value": left + right}

    steps = ["total = add(left=19, right=23)['value']\nprint(total)", "SUBMIT(answer=str(total))"]
    pred = _run_rlm(interpreter_cls, "question -> answer", steps, {"answer": "fallback"}, tools=[add], question="q")
    assert pred.answer == "42"


def test_rlm_user_tool_accepts_positional_arguments(interpreter_cls):
    def add(left: int, right: int) -> dict:
        """Add two integers."""
        return {"value": left + right}

    steps = ["SUBMIT(answer=str(add(19, 23)['value']))"]
    pred = _run_rlm(interpreter_cls, "question -> answer", steps, {"answer": "fallback"}, tools=[add], question="q")
    assert pred.answer == "42"


def test_rlm_typed_output_fields(interpreter_cls):
    steps = ["SUBMIT(answer='yes', score=42)"]
    pred = _run_rlm(interpreter_cls, "question -> answer: str, score: int", steps, {"answer": "no", "score": "0"}, question="q")
    assert (pred.answer, pred.score) == ("yes", 42)


def test_rlm_reads_injected_input_variable(interpreter_cls):
    steps = ["SUBMIT(answer=str(len(context)))"]
    pred = _run_rlm(
        interpreter_cls, "context, question -> answer", steps, {"answer": "fallback"}, context="x" * 1000, question="q"
    )
    assert pred.answer == "1000"


def test_rlm_recovers_from_runtime_error(interpreter_cls):
    steps = ["1 / 0", "SUBMIT(answer='recovered')"]
    pred = _run_rlm(interpreter_cls, "question -> answer", steps, {"answer": "fallback"}, question="q")
    assert pred.answer == "recovered"
    assert pred.trajectory[0]["output"].startswith("[Error]")


def test_rlm_shuts_down_the_interpreter_it_created(interpreter_cls):
    created = []

    def factory():
        created.append(interpreter_cls())
        return created[-1]

    _run_rlm(factory, "question -> answer", ["SUBMIT(answer='done')"], {"answer": "fallback"}, question="q")
    assert len(created) == 1
    with pytest.raises(CodeInterpreterError):
        created[0].execute("1")


def test_rlm_registers_llm_query_tools_in_the_interpreter(interpreter_cls):
    created = []

    def factory():
        created.append(interpreter_cls())
        return created[-1]

    _run_rlm(factory, "question -> answer", ["SUBMIT(answer='done')"], {"answer": "fallback"}, question="q")
    assert {"llm_query", "llm_query_batched"} <= set(created[0].tools)
