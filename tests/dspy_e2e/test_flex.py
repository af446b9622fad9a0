"""End-to-end: dspy.Flex executing a user dspy.Module subclass inside the interpreter under test.

Flex (dspy 3.4.1: ``dspy.Flex``, defined in ``dspy/predict/flex/flex.py``) never runs its ``module_src`` in the
host: per forward it makes an interpreter from ``interpreter_factory``, registers the user tools, installs the
sandbox ``dspy`` facade, executes the module source, then runs a driver whose *last expression* is a JSON string
of the returned prediction's fields. The interpreter must therefore return the value of a trailing expression.
"""

from __future__ import annotations

import dspy
import pytest
from dspy.primitives.code_interpreter import CodeExecutionError, CodeInterpreterError

PASSAGES = {
    "france": ["Paris is the capital of France.", "France borders Spain."],
    "norway": ["Oslo is the capital of Norway."],
}


def search_corpus(query: str, k: int = 2) -> list:
    """Return up to k passages whose topic appears in the query."""
    search_corpus.calls.append(query)
    hits = [p for topic, ps in PASSAGES.items() if topic in query.lower() for p in ps]
    return hits[:k]


search_corpus.calls = []


@pytest.fixture(autouse=True)
def _reset_tool_calls():
    search_corpus.calls.clear()
    yield
    search_corpus.calls.clear()


# A user-authored module: two predictors bound as attributes, a helper method, a host tool, plain Python.
PIPELINE_SRC = """
class RetrieveThenAnswer(dspy.Module):
    def __init__(self):
        super().__init__()
        self.keywords = dspy.Predict("question -> keywords")
        self.respond = dspy.ChainOfThought("question, passages -> answer")

    @staticmethod
    def _normalise(text):
        return " ".join(text.split())

    def forward(self, question):
        keywords = self.keywords(question=question).keywords
        passages = search_corpus(query=keywords, k=2)
        numbered = "\\n".join(f"[{i + 1}] {p}" for i, p in enumerate(passages))
        result = self.respond(question=question, passages=numbered)
        answer = self._normalise(result.answer)
        # word_count is returned as a string on purpose: Flex parses outputs against the signature on the host.
        return dspy.Prediction(answer=answer, word_count=str(len(answer.split())), sources=passages)
"""


def test_flex_runs_user_module_subclass(tracking_factory, make_lm, chat_adapter):
    flex = dspy.Flex(
        "question -> answer: str, word_count: int, sources: list[str]",
        tools=[search_corpus],
        interpreter_factory=tracking_factory,
    )
    flex.load_state({"module_src": PIPELINE_SRC})
    assert flex.module_src == PIPELINE_SRC

    lm = make_lm(
        [
            {"keywords": "capital of France"},
            {"reasoning": "Passage [1] says so.", "answer": "  Paris,\n  France  "},
        ]
    )
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = flex(question="What is the capital of France?")

    assert prediction.answer == "Paris, France"
    assert prediction.word_count == 2
    assert isinstance(prediction.word_count, int)
    assert prediction.sources == PASSAGES["france"]

    # The tool ran on the host with the sandbox-computed query; the predictors saw sandbox-built inputs.
    assert search_corpus.calls == ["capital of France"]
    assert lm.answers.remaining == 0
    assert "[1] Paris is the capital of France.\n[2] France borders Spain." in lm.history[1]["messages"][-1]["content"]

    assert len(tracking_factory.created) == 1
    tracking_factory.assert_all_shut_down()


def test_flex_fresh_interpreter_per_forward(tracking_factory, make_lm, chat_adapter):
    src = """
class Counter(dspy.Module):
    def forward(self, question):
        global calls
        calls = globals().get("calls", 0) + 1
        return dspy.Prediction(answer=question.upper() + "#" + str(calls))
"""
    flex = dspy.Flex("question -> answer", interpreter_factory=tracking_factory)
    flex.load_state({"module_src": src})
    with dspy.context(lm=make_lm([]), adapter=chat_adapter):
        first = flex(question="one")
        second = flex(question="two")
    # No state leaks between forwards: each runs in a new interpreter.
    assert (first.answer, second.answer) == ("ONE#1", "TWO#1")
    assert len(tracking_factory.created) == 2
    tracking_factory.assert_all_shut_down()


def test_flex_baseline_predict(interpreter_factory, make_lm, chat_adapter):
    """Without load_state, Flex runs its generated baseline: a dspy.Module wrapping one dspy.Predict."""
    flex = dspy.Flex("question -> answer: str, confidence: float", interpreter_factory=interpreter_factory)
    assert "dspy.Predict(" in flex.module_src
    lm = make_lm([{"answer": "42", "confidence": "0.9"}])
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = flex(question="What is six times seven?")
    assert prediction.answer == "42"
    assert prediction.confidence == pytest.approx(0.9)


def test_flex_baseline_with_tools_runs_nested_rlm_on_same_backend(tracking_factory, make_lm, step, chat_adapter):
    """With tools, the baseline builds dspy.RLM in the sandbox; the host RLM gets the same interpreter factory,
    so a second interpreter runs while the first one is blocked inside a host call."""
    flex = dspy.Flex("question -> answer", tools=[search_corpus], interpreter_factory=tracking_factory)
    assert "dspy.RLM(" in flex.module_src
    lm = make_lm(
        [
            step("hits = search_corpus(query=question, k=1)\nprint(hits)"),
            step("SUBMIT(answer=hits[0].split(' is ')[0])"),
        ]
    )
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = flex(question="What is the capital of Norway?")

    assert prediction.answer == "Oslo"
    assert search_corpus.calls == ["What is the capital of Norway?"]
    assert len(tracking_factory.created) == 2  # the Flex sandbox + the nested RLM's REPL
    tracking_factory.assert_all_shut_down()


def test_flex_sandbox_error_surfaces_as_code_execution_error(tracking_factory, make_lm, chat_adapter):
    src = """
class Broken(dspy.Module):
    def forward(self, question):
        return dspy.Prediction(answer=str(len(question) / 0))
"""
    flex = dspy.Flex("question -> answer", interpreter_factory=tracking_factory)
    flex.load_state({"module_src": src})
    with dspy.context(lm=make_lm([]), adapter=chat_adapter):
        with pytest.raises(CodeExecutionError, match="ZeroDivisionError"):
            flex(question="boom")
    tracking_factory.assert_all_shut_down()


def test_flex_missing_output_field_is_reported(interpreter_factory, make_lm, chat_adapter):
    src = """
class Incomplete(dspy.Module):
    def forward(self, question):
        return dspy.Prediction(answer="only this")
"""
    flex = dspy.Flex("question -> answer, score: int", interpreter_factory=interpreter_factory)
    flex.load_state({"module_src": src})
    with dspy.context(lm=make_lm([]), adapter=chat_adapter):
        with pytest.raises(CodeInterpreterError, match="score"):
            flex(question="q")
