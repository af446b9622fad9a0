"""dspy's newer interpreter API, as far as dspy's repository publishes it: factories made by ``.configured()``
carrying their instructions, ``prepare_inputs`` (images become references), image references passed through
``llm_query``, and the capability flags (declared where the installed dspy has them)."""

from __future__ import annotations

import enum
import pickle

import dspy
import pytest

from dspy_rust_interpreter import ConfiguredInterpreter, RustInterpreter


def test_configured_is_a_picklable_factory_of_fresh_interpreters_carrying_both_instructions():
    factory = RustInterpreter.configured(timeout=7.0)
    assert isinstance(factory, ConfiguredInterpreter)
    again = pickle.loads(pickle.dumps(factory))
    assert again.execution_instructions == RustInterpreter.execution_instructions
    assert again.flex_execution_instructions == RustInterpreter.flex_execution_instructions
    first, second = again(), again()
    try:
        assert first is not second and first._configuration.options.session.timeout == 7.0
        first.execute("x = 1")
        with pytest.raises(Exception, match="NameError"):
            second.execute("x")
    finally:
        first.shutdown()
        second.shutdown()


def test_configured_refuses_an_unknown_option_when_it_is_made():
    with pytest.raises(TypeError, match="unexpected option"):
        RustInterpreter.configured(no_such_option=1)


def test_flex_instructions_describe_this_sandbox():
    text = RustInterpreter.flex_execution_instructions
    assert "RustPython" in text and "plain data" in text


def test_prepare_inputs_turns_images_into_references_without_touching_the_callers_values():
    image = dspy.Image("https://example.com/chart.png")
    inputs = {"page": image, "more": [image, ("caption", image)], "meta": {"thumb": image}, "n": 3}
    prepared = RustInterpreter().prepare_inputs(inputs)
    url = "https://example.com/chart.png"
    assert prepared == {"page": url, "more": [url, ("caption", url)], "meta": {"thumb": url}, "n": 3}
    assert inputs["page"] is image and inputs["more"][0] is image


def test_image_references_reach_llm_query_as_given(make_interp):
    # dspy's newer llm_query(prompt, images=[...]) takes URL strings or {"url": ...} dicts from sandbox code.
    seen = []

    def llm_query(prompt: str, images: list | None = None) -> str:
        seen.append((prompt, images))
        return "a bar chart"

    interp = make_interp(tools={"llm_query": llm_query})
    prepared = interp.prepare_inputs({"page": dspy.Image("data:image/png;base64,iVBORw0KGgo=")})
    out = interp.execute("llm_query('what is it?', images=[page, {'url': 'https://x/y.png'}])", variables=prepared)
    assert out == "a bar chart"
    assert seen == [("what is it?", ["data:image/png;base64,iVBORw0KGgo=", {"url": "https://x/y.png"}])]


def test_capabilities_are_declared_only_where_dspy_has_the_flags(monkeypatch):
    from dspy_rust_interpreter import _dspy_api

    assert not hasattr(dspy, "InterpreterCapability") or hasattr(RustInterpreter, "capabilities")

    class InterpreterCapability(enum.Flag):
        SUB_DSPY = enum.auto()
        FACADE_DSPY = enum.auto()

    monkeypatch.setattr(dspy, "InterpreterCapability", InterpreterCapability, raising=False)
    # The sandbox hosts dspy's facade (sub-predictors run on the host); it cannot import the real dspy.
    assert _dspy_api.capabilities() is InterpreterCapability.FACADE_DSPY
    monkeypatch.delattr(dspy, "InterpreterCapability")
    assert _dspy_api.capabilities() is None


def test_a_configured_factory_carries_the_classes_capabilities(monkeypatch):
    flag = enum.Flag("InterpreterCapability", "SUB_DSPY FACADE_DSPY")
    monkeypatch.setattr(RustInterpreter, "capabilities", flag.FACADE_DSPY, raising=False)
    assert RustInterpreter.configured().capabilities is flag.FACADE_DSPY
