"""End-to-end: dspy.RLM driving the interpreter under test with scripted LMs."""

from __future__ import annotations

import asyncio
import time

import dspy
import pytest
from dspy.primitives.code_interpreter import CodeInterpreter

SIGNATURE = "context, query -> answer: str, count: int"

CONTEXT = "\n".join(
    [
        "2024-05-01 ok shipment of apples to Lyon",
        "2024-05-02 ok shipment of pears to Lyon",
        "2024-05-03 late shipment of apples to Oslo",
        "2024-05-04 ok shipment of apples to Porto",
        "2024-05-05 ok shipment of plums to Oslo",
    ]
)
QUERY = "How many apple shipments are there, and where did they go?"


# A user tool with typed parameters and a default; RLM wraps it as ``invoke(**kwargs)``.
def count_matches(text: str, word: str, case_sensitive: bool = False) -> dict:
    """Count the lines of ``text`` that mention ``word``."""
    lines = text.splitlines()
    if not case_sensitive:
        word = word.lower()
        lines = [line.lower() for line in lines]
    hits = [i for i, line in enumerate(lines) if word in line]
    count_matches.calls.append({"word": word, "lines": len(lines)})
    return {"word": word, "count": len(hits), "line_numbers": hits}


count_matches.calls = []


@pytest.fixture(autouse=True)
def _reset_tool_calls():
    count_matches.calls.clear()
    yield
    count_matches.calls.clear()


def _outputs(prediction) -> list[str]:
    return [entry["output"] for entry in prediction.trajectory]


def test_rlm_tool_llm_query_error_recovery_and_typed_submit(tracking_factory, make_lm, make_sub_lm, step, chat_adapter):
    lm = make_lm(
        [
            # (a) explore + call the user tool (keyword arguments) and print
            step(
                """
lines = context.splitlines()
info = count_matches(text=context, word="apples")
print(f"lines={len(lines)} apples={info['count']} at={info['line_numbers']}")
""",
                reasoning="Look at the data and count apple lines with the tool.",
            ),
            # (b) ask the sub-LM about the matching lines (positional llm_query, as models write it)
            step(
                """
apple_lines = [lines[i] for i in info["line_numbers"]]
summary = llm_query("List the destinations in these lines:\\n" + "\\n".join(apple_lines))
print("sub-LM said:", summary)
""",
                reasoning="Use the sub-LM for the semantic part.",
            ),
            # (c) a runtime error; nothing after it may run
            step(
                """
ratio = info["count"] / (len(lines) - len(lines))
print("unreachable", ratio)
""",
                reasoning="Compute a ratio (buggy).",
            ),
            # ... and the next iteration recovers, reusing state from earlier iterations
            step(
                """
ratio = info["count"] / len(lines)
destinations = sorted({line.rsplit(" ", 1)[-1] for line in apple_lines})
print("recovered ratio=%.2f destinations=%s" % (ratio, ",".join(destinations)))
""",
                reasoning="Fix the denominator.",
            ),
            # (d) typed SUBMIT
            step(
                'SUBMIT(answer=summary.strip() + " (" + ", ".join(destinations) + ")", count=info["count"])',
                reasoning="Done.",
            ),
        ]
    )
    sub_lm = make_sub_lm(lambda prompt: "  Lyon, Oslo and Porto  ")

    rlm = dspy.RLM(
        SIGNATURE,
        interpreter_factory=tracking_factory,
        tools=[count_matches],
        sub_lm=sub_lm,
        max_iters=6,
    )
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)

    # Final, typed fields.
    assert prediction.answer == "Lyon, Oslo and Porto (Lyon, Oslo, Porto)"
    assert prediction.count == 3
    assert isinstance(prediction.count, int)
    assert prediction.final_reasoning == "Done."

    # Trajectory: one entry per iteration, showing the printed output and the error.
    outputs = _outputs(prediction)
    assert len(outputs) == 5
    assert "lines=5 apples=3 at=[0, 2, 3]" in outputs[0]
    assert "sub-LM said:   Lyon, Oslo and Porto" in outputs[1]
    assert outputs[2].startswith("[Error]")
    assert "ZeroDivisionError" in outputs[2]
    assert "unreachable" not in outputs[2]
    assert "recovered ratio=0.60 destinations=Lyon,Oslo,Porto" in outputs[3]
    assert outputs[4].startswith("FINAL:")
    assert prediction.trajectory[0]["code"].startswith("lines = context.splitlines()")  # fences stripped

    # Host side: the tool ran on the host with keyword args; the sub-LM saw the sandbox-built prompt.
    assert count_matches.calls == [{"word": "apples", "lines": 5}]
    assert len(sub_lm.prompts) == 1
    assert sub_lm.prompts[0].startswith("List the destinations in these lines:\n2024-05-01 ok shipment of apples")
    assert "late shipment of apples to Oslo" in sub_lm.prompts[0]

    # Every scripted step was used; one interpreter per forward, shut down afterwards.
    assert lm.answers.remaining == 0
    assert len(tracking_factory.created) == 1
    tracking_factory.assert_all_shut_down()


@pytest.mark.needs_dspy("3.4", "the sandbox dspy facade's sub-agent rules")
def test_rlm_prompt_carries_execution_instructions_and_sub_agent_rules(interpreter_factory, make_lm, step, chat_adapter):
    lm = make_lm([step("SUBMIT(answer='x', count=1)")])
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=interpreter_factory, max_iters=2)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)
    assert (prediction.answer, prediction.count) == ("x", 1)

    system_prompt = lm.history[0]["messages"][0]["content"]
    instructions = getattr(interpreter_factory, "execution_instructions", "")
    assert isinstance(instructions, str)
    if instructions:
        assert "Execution environment:" in system_prompt
    # Present only if the facade shim executed successfully in the interpreter (RLM silently drops it otherwise).
    assert "Sub-agents (dspy):" in system_prompt


def test_rlm_syntax_error_silent_step_and_bad_submit_are_recoverable(tracking_factory, make_lm, step, chat_adapter):
    lm = make_lm(
        [
            step("total = len(context)"),  # no print: RLM shows a placeholder
            step("def broken(:\n    pass"),  # SyntaxError
            step("SUBMIT('only one value')"),  # wrong arity for two output fields
            step("print('still here', total == len(context))"),  # state survived all of the above
            step("SUBMIT(count=total, answer='done')"),
        ]
    )
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=tracking_factory, max_iters=6)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)

    outputs = _outputs(prediction)
    assert outputs[0] == "(no output - did you forget to print?)"
    assert outputs[1].startswith("[Error]")
    # Either the interpreter rejects the arity (CodeExecutionError -> "[Error] ...") or it returns a partial
    # FinalOutput that RLM rejects ("[Error] Missing output fields ...").
    assert outputs[2].startswith("[Error]")
    assert outputs[3] == "still here True\n"
    assert prediction.answer == "done"
    assert prediction.count == len(CONTEXT)
    tracking_factory.assert_all_shut_down()


def test_rlm_reinjects_inputs_every_iteration(interpreter_factory, make_lm, step, chat_adapter):
    """RLM passes the inputs to execute() on every iteration; sandbox edits to them must not leak forward."""
    records = [f"record-{i:03d}" for i in range(200)]
    lm = make_lm(
        [
            step("records.append('extra')\nquery = 'clobbered'\nprint(len(records), query)"),
            step("print(len(records), query, records[-1])"),
            step("SUBMIT(answer=query, count=len(records))"),
        ]
    )
    rlm = dspy.RLM(
        "records: list[str], query: str -> answer: str, count: int",
        interpreter_factory=interpreter_factory,
        max_iters=4,
    )
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(records=records, query="original")

    outputs = _outputs(prediction)
    assert outputs[0] == "201 clobbered\n"
    assert outputs[1] == "200 original record-199\n"
    assert (prediction.answer, prediction.count) == ("original", 200)
    assert len(records) == 200  # the host's list was never touched


@pytest.mark.needs_dspy("3.4", "the sandbox dspy facade")
def test_rlm_sandbox_dspy_facade_runs_sub_predictors_on_host(tracking_factory, make_lm, step, chat_adapter):
    lm = make_lm(
        [
            # A predictor bound to a plain variable and called: built on the host on first call.
            step(
                """
import dspy
qa = dspy.Predict("question -> answer")
pred = qa(question="Which city got the late shipment?")
print("predict:", pred.answer, type(pred).__name__)
"""
            ),
            # A predictor bound as a dspy.Module attribute (the attribute name is its host-side handle).
            step(
                """
class Triage(dspy.Module):
    def __init__(self):
        super().__init__()
        self.classify = dspy.ChainOfThought("line -> severity")

    def forward(self, line):
        return self.classify(line=line)

triage = Triage()
late = [l for l in context.splitlines() if "late" in l][0]
verdict = triage(line=late)
print("severity:", verdict.severity, "|", verdict.reasoning)
"""
            ),
            step("SUBMIT(answer=pred.answer + '/' + verdict.severity, count=len(verdict.severity))"),
        ]
    )
    # The facade's predictors run on sub_lm (metered by RLM's budget), not on the action LM.
    sub_lm = make_lm(
        [
            {"answer": "Oslo"},
            {"reasoning": "A late delivery is a moderate problem.", "severity": "medium"},
        ],
        name="sub",
    )
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=tracking_factory, sub_lm=sub_lm, max_iters=4)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)

    outputs = _outputs(prediction)
    assert outputs[0] == "predict: Oslo _DspyPrediction\n"
    assert outputs[1] == "severity: medium | A late delivery is a moderate problem.\n"
    assert prediction.answer == "Oslo/medium"
    assert prediction.count == len("medium")

    # The sub-predictors really ran on the host, with the sandbox-provided inputs.
    assert sub_lm.answers.remaining == 0
    assert "Which city got the late shipment?" in sub_lm.history[0]["messages"][-1]["content"]
    assert "2024-05-03 late shipment of apples to Oslo" in sub_lm.history[1]["messages"][-1]["content"]
    assert lm.answers.remaining == 0
    tracking_factory.assert_all_shut_down()


@pytest.mark.needs_dspy("3.4", "dspy.configure(interpreter_factory=...)")
def test_rlm_uses_interpreter_factory_from_dspy_settings(tracking_factory, make_lm, step, chat_adapter):
    lm = make_lm([step("SUBMIT(answer=query[:3], count=len(context.splitlines()))")])
    rlm = dspy.RLM(SIGNATURE, max_iters=2)  # no factory: resolved from dspy.settings at call time
    with dspy.context(lm=lm, adapter=chat_adapter, interpreter_factory=tracking_factory):
        prediction = rlm(context=CONTEXT, query=QUERY)
    assert (prediction.answer, prediction.count) == ("How", 5)
    assert len(tracking_factory.created) == 1
    tracking_factory.assert_all_shut_down()


def test_rlm_json_adapter(interpreter_factory, make_lm, step):
    """Same loop with JSONAdapter: code containing quotes, braces and newlines survives JSON formatting."""
    adapter = dspy.JSONAdapter()
    lm = make_lm(
        [
            step('stats = {"chars": len(context), "quote": "it\'s \\"fine\\""}\nprint(stats["quote"], "{ok}")'),
            step('SUBMIT(answer=stats["quote"], count=stats["chars"])'),
        ],
        adapter=adapter,
    )
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=interpreter_factory, max_iters=3)
    with dspy.context(lm=lm, adapter=adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)
    assert _outputs(prediction)[0] == 'it\'s "fine" {ok}\n'
    assert prediction.answer == 'it\'s "fine"'
    assert prediction.count == len(CONTEXT)


def test_rlm_async_forward(tracking_factory, make_lm, make_sub_lm, step, chat_adapter):
    lm = make_lm(
        [
            step("print(count_matches(text=context, word='oslo')['count'], llm_query('hi'))"),
            step("SUBMIT(answer='async', count=count_matches(text=context, word='lyon')['count'])"),
        ]
    )
    rlm = dspy.RLM(
        SIGNATURE,
        interpreter_factory=tracking_factory,
        tools=[count_matches],
        sub_lm=make_sub_lm(lambda prompt: prompt.upper()),
        max_iters=3,
    )

    async def main():
        with dspy.context(lm=lm, adapter=chat_adapter):
            return await rlm.acall(context=CONTEXT, query=QUERY)

    prediction = asyncio.run(main())
    assert _outputs(prediction)[0] == "2 HI\n"
    assert (prediction.answer, prediction.count) == ("async", 2)
    tracking_factory.assert_all_shut_down()


def test_rlm_parallel_forwards_get_isolated_interpreters(tracking_factory, chat_adapter, step):
    """Concurrent forwards (dspy's batch/ParallelExecutor threads) each get their own interpreter state."""
    from dspy.utils.dummies import DummyLM

    tags = ["alpha", "bravo", "charlie", "delta"]
    code = """
seen = globals().get("seen_tag")
seen_tag = query
SUBMIT(answer=f"{query}:{seen}", count=len(context))
"""
    # Dict mode: the answer is chosen by a key found in the prompt, so thread scheduling does not matter.
    lm = DummyLM({f"tag-{tag}": step(code) for tag in tags})
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=tracking_factory, max_iters=2)
    examples = [
        dspy.Example(context="x" * (i + 1) * 1000, query=f"tag-{tag}").with_inputs("context", "query")
        for i, tag in enumerate(tags)
    ]
    with dspy.context(lm=lm, adapter=chat_adapter):
        predictions = rlm.batch(examples, num_threads=4, max_errors=0)

    assert [(p.answer, p.count) for p in predictions] == [(f"tag-{tag}:None", (i + 1) * 1000) for i, tag in enumerate(tags)]
    assert len(tracking_factory.created) == len(tags)
    assert len({id(interp) for interp in tracking_factory.created}) == len(tags)
    tracking_factory.assert_all_shut_down()


def test_rlm_user_tool_called_positionally(interpreter_factory, make_lm, step, chat_adapter):
    """Models often call tools positionally. RLM hands the interpreter ``invoke(**kwargs)`` wrappers carrying the
    original ``__signature__``, so positional calls only work if the interpreter binds them to parameter names."""
    try:
        from dspy.primitives.local_interpreter import LocalInterpreter
    except ImportError:  # dspy 3.3 has no LocalInterpreter
        LocalInterpreter = None

    if LocalInterpreter and isinstance(interpreter_factory, type) and issubclass(interpreter_factory, LocalInterpreter):
        pytest.skip("dspy's LocalInterpreter forwards positional args unchanged, which invoke(**kwargs) rejects")
    lm = make_lm(
        [
            step("r = count_matches(context, 'apples')\nprint(r['count'])"),
            step("SUBMIT(answer=r['word'], count=count_matches(context, 'APPLES', True)['count'])"),
        ]
    )
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=interpreter_factory, tools=[count_matches], max_iters=3)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)
    assert _outputs(prediction)[0] == "3\n"
    assert (prediction.answer, prediction.count) == ("apples", 0)


def test_factory_makes_code_interpreters(interpreter_factory):
    interpreter = interpreter_factory()
    try:
        assert isinstance(interpreter, CodeInterpreter)
        assert isinstance(interpreter.tools, dict)
    finally:
        interpreter.shutdown()


def test_rlm_code_gathers_llm_query_calls_at_the_same_time(tracking_factory, make_lm, make_sub_lm, step, chat_adapter):
    # The code a model writes to fan out: RLM's llm_query awaited in a gather at the top of a cell. The
    # sub-LM takes 0.3 s per prompt; four prompts one after the other would take 1.2 s.
    def slow_upper(prompt: str) -> str:
        time.sleep(0.3)
        return prompt.upper()

    lm = make_lm(
        [
            step(
                """
import asyncio, time
started = time.perf_counter()
parts = await asyncio.gather(*(llm_query(f"city {i}") for i in range(4)))
took = time.perf_counter() - started
print(parts, took < 1.0)
""",
                reasoning="Ask about every city at once.",
            ),
            step('SUBMIT(answer=" | ".join(parts), count=len(parts))', reasoning="Done."),
        ]
    )
    sub_lm = make_sub_lm(slow_upper)
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=tracking_factory, sub_lm=sub_lm, max_iters=3)
    with dspy.context(lm=lm, adapter=chat_adapter):
        prediction = rlm(context=CONTEXT, query=QUERY)
    assert prediction.answer == "CITY 0 | CITY 1 | CITY 2 | CITY 3"
    assert "['CITY 0', 'CITY 1', 'CITY 2', 'CITY 3'] True" in _outputs(prediction)[0]
    assert sorted(sub_lm.prompts) == [f"city {i}" for i in range(4)]
