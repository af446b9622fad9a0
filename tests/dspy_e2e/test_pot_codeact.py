"""End-to-end: dspy.ProgramOfThought and dspy.CodeAct on the interpreter under test.

Both accept ``interpreter_factory=`` in dspy 3.4.1 (and a caller-owned interpreter as the first positional
argument of ``forward``). Both are deprecated in 3.4 in favour of RLM and warn on construction.

Interpreter behaviours these modules rely on:
* ProgramOfThought appends the name of a trailing assignment as a bare expression and ``json.dumps`` whatever
  ``execute`` returns, so the interpreter must return the value of a trailing expression.
* ProgramOfThought sets no ``output_fields``: ``SUBMIT(value)`` must give ``FinalOutput({"output": value})``.
* CodeAct does not register its tools as host tools: it executes ``inspect.getsource(tool)`` in the interpreter,
  so the tool's own source must run there.
"""

from __future__ import annotations

import json

import dspy
import pytest

pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated and will be removed in 3.5:DeprecationWarning")


# CodeAct re-defines its tools inside the interpreter from their source, so they must be module-level functions.
def factorial(n: int) -> int:
    """Return n! for a non-negative integer n."""
    result = 1
    for i in range(2, n + 1):
        result *= i
    return result


def digit_sum(value: int) -> int:
    """Return the sum of the decimal digits of value."""
    return sum(int(d) for d in str(abs(value)))


# ------------------------------------------------------------------------------------------ ProgramOfThought


def test_program_of_thought_trailing_assignment_value(tracking_factory, make_lm, chat_adapter):
    lm = make_lm(
        [
            {
                "reasoning": "Sum the primes below 30.",
                "generated_code": (
                    "```python\nprimes = [n for n in range(2, 30) if all(n % d for d in range(2, n))]\ntotal = sum(primes)\n```"
                ),
            },
            {"reasoning": "The code printed 129.", "answer": "129"},
        ]
    )
    pot = dspy.ProgramOfThought("question -> answer", interpreter_factory=tracking_factory)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = pot(question="What is the sum of the primes below 30?")

    assert prediction.answer == "129"
    final_prompt = lm.history[-1]["messages"][-1]["content"]
    code_output = final_prompt.split("[[ ## code_output ## ]]\n", 1)[1].split("\n\n", 1)[0]
    assert json.loads(code_output) in (129, "129")
    assert lm.answers.remaining == 0
    assert len(tracking_factory.created) == 1
    tracking_factory.assert_all_shut_down()


def test_program_of_thought_error_then_submit(tracking_factory, make_lm, chat_adapter):
    lm = make_lm(
        [
            {"reasoning": "Divide.", "generated_code": "```python\nrate = 10 / (3 - 3)\n```"},
            {
                "reasoning": "Avoid the zero denominator.",
                "generated_code": "```python\nrate = 10 / 4\nSUBMIT({'answer': rate})\n```",
            },
            {"reasoning": "Read the submitted value.", "answer": "2.5"},
        ]
    )
    pot = dspy.ProgramOfThought("question -> answer", max_iters=3, interpreter_factory=tracking_factory)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = pot(question="What is 10 divided by 4?")

    assert prediction.answer == "2.5"
    # The regenerate call was shown the runtime error, with its type.
    regenerate_prompt = lm.history[1]["messages"][-1]["content"]
    assert "[[ ## error ## ]]" in regenerate_prompt
    assert "ZeroDivisionError" in regenerate_prompt
    # SUBMIT without output_fields wraps the value as {"output": ...}.
    final_prompt = lm.history[2]["messages"][-1]["content"]
    code_output = final_prompt.split("[[ ## code_output ## ]]\n", 1)[1].split("\n\n", 1)[0]
    assert json.loads(code_output) == {"output": {"answer": 2.5}}
    tracking_factory.assert_all_shut_down()


def test_program_of_thought_caller_owned_interpreter(interpreter_factory, make_lm, chat_adapter):
    lm = make_lm(
        [
            {"reasoning": "r", "generated_code": "```python\nsquares = [i * i for i in range(5)]\nbest = max(squares)\n```"},
            {"reasoning": "r", "answer": "16"},
        ]
    )
    pot = dspy.ProgramOfThought("question -> answer", interpreter_factory=interpreter_factory)
    interpreter = interpreter_factory()
    try:
        with dspy.context(lm=lm, adapter=chat_adapter):
            prediction = pot(interpreter, question="Largest square below 25?")
        assert prediction.answer == "16"
        # PoT does not shut down a caller-owned interpreter, and its session state is still there.
        assert interpreter.execute("print(best, len(squares))").strip() == "16 5"
    finally:
        interpreter.shutdown()


# ----------------------------------------------------------------------------------------------------- CodeAct


def test_codeact_tools_error_and_finish(tracking_factory, make_lm, chat_adapter):
    # CodeAct puts its inputs in the prompt only; they are not variables in the interpreter.
    lm = make_lm(
        [
            {"generated_code": "```python\nprint(factorial(5))\n```", "finished": False},
            {"generated_code": "```python\nbad = factorial(5) / (digit_sum(100) - 1)\n```", "finished": False},
            {
                "generated_code": "```python\nvalue = factorial(6)\nprint(value, digit_sum(value))\n```",
                "finished": True,
            },
            {"reasoning": "factorial(6) printed 720.", "factorial": "720", "digits": "9"},
        ]
    )
    act = dspy.CodeAct(
        "n: int -> factorial: int, digits: int",
        tools=[factorial, digit_sum],
        max_iters=5,
        interpreter_factory=tracking_factory,
    )
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = act(n=6)

    assert prediction.factorial == 720
    assert prediction.digits == 9
    trajectory = prediction.trajectory
    assert "120" in trajectory["code_output_0"]
    assert "Failed to execute the generated code" in trajectory["observation_1"]
    assert "ZeroDivisionError" in trajectory["observation_1"]
    assert "720 9" in trajectory["code_output_2"]
    assert "generated_code_3" not in trajectory  # finished=True stopped the loop
    assert lm.answers.remaining == 0
    assert len(tracking_factory.created) == 1
    tracking_factory.assert_all_shut_down()
