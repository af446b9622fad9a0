"""Host tools in the sandbox: stand-ins, argument binding, call_tool, live updates, errors, context, re-entry."""

from __future__ import annotations

import contextvars
import inspect
import threading

import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, RustInterpreter


def add(a, b):
    return a + b


def _rlm_style_wrapper(func):
    """A tool like dspy's RLM builds: ``invoke(**kwargs)`` carrying the user function's ``__signature__``."""

    def invoke(**kwargs):
        return func(**kwargs)

    invoke.__signature__ = inspect.signature(func)
    return invoke


def _labelled(x, y="default"):
    return f"x={x!r} y={y!r}"


# ---------------------------------------------------------------------------------------------------------
# stand-ins and argument binding
# ---------------------------------------------------------------------------------------------------------


def test_tool_stand_in_has_tool_name(make_interp):
    interp = make_interp(tools={"add": add, "lookup_doc": lambda key: key})
    assert interp.execute("add.__name__, lookup_doc.__name__") == ("add", "lookup_doc")


def test_tool_stand_in_is_callable_global(make_interp):
    interp = make_interp(tools={"add": add})
    assert interp.execute("callable(add), 'add' in globals()") == (True, True)


def test_positional_args_bind_through_signature_of_kwargs_only_wrapper(make_interp):
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    assert interp.execute("label(1, 2)") == "x=1 y=2"


def test_partial_positional_args_leave_defaults_to_wrapper(make_interp):
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    assert interp.execute("label('a')") == "x='a' y='default'"


def test_mixed_positional_and_keyword_args_bind_through_signature(make_interp):
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    assert interp.execute("label(1, y=[2])") == "x=1 y=[2]"


def test_too_many_positional_args_raise_the_vms_type_error_naming_function(make_interp):
    # The stand-in carries the tool's signature: the VM binds the arguments, as for any function.
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("label(1, 2, 3)")
    assert info.value.error_type == "TypeError"
    assert "label() takes from 1 to 2 positional arguments but 3 were given" in str(info.value)


def test_call_tool_binds_arguments_as_a_direct_call_does(make_interp):
    """call_tool(name, ...) calls the tool's stand-in: the same binding, the VM's own errors."""
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("call_tool('label', 1, 2, 3)")
    assert info.value.error_type == "TypeError"
    assert "label() takes from 1 to 2 positional arguments but 3 were given" in str(info.value)
    assert interp.execute("call_tool('label', 1)") == interp.execute("label(1)") == "x=1 y='default'"


def test_call_tool_reaches_a_tool_whose_global_was_deleted_or_rebound(make_interp):
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    assert interp.execute("del label\ncall_tool('label', 'a', y=2)") == "x='a' y=2"
    assert interp.execute("label = print\ncall_tool('label', 'b')") == "x='b' y='default'"


def test_duplicate_positional_and_keyword_arg_raises_type_error(make_interp):
    interp = make_interp(tools={"label": _rlm_style_wrapper(_labelled)})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("label(1, x=2)")
    assert info.value.error_type == "TypeError"
    assert "label() got multiple values for argument 'x'" in str(info.value)
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("call_tool('label', 1, x=2)")
    assert "label() got multiple values for argument 'x'" in str(info.value)


def test_var_positional_tool_receives_positional_args_unchanged(make_interp):
    def collect(*args, **kwargs):
        return [list(args), kwargs]

    interp = make_interp(tools={"collect": collect})
    assert interp.execute("collect(1, 'two', k=3)") == [[1, "two"], {"k": 3}]


def test_builtin_callable_without_signature_works_as_tool(make_interp):
    interp = make_interp(tools={"biggest": max})
    assert interp.execute("biggest(3, 9, 4)") == 9


def test_tool_arguments_are_converted_to_host_types(make_interp):
    seen = []

    def record(value):
        seen.append(value)
        return None

    interp = make_interp(tools={"record": record})
    interp.execute("record({'t': (1, 2), 's': {3}, 'b': b'x', 'n': 2**100})")
    assert seen == [{"t": (1, 2), "s": {3}, "b": b"x", "n": 2**100}]
    assert type(seen[0]["t"]) is tuple


# ---------------------------------------------------------------------------------------------------------
# call_tool
# ---------------------------------------------------------------------------------------------------------


def test_call_tool_calls_tool_by_name(make_interp):
    interp = make_interp(tools={"add": add})
    assert interp.execute("call_tool('add', 1, b=2)") == 3


def test_call_tool_with_unknown_name_raises_runtime_error_listing_tools(make_interp):
    interp = make_interp(tools={"add": add, "lookup": lambda key: key})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("call_tool('nosuch', 1)")
    assert info.value.error_type == "RuntimeError"
    assert "tool 'nosuch' is not available" in str(info.value)
    assert "available tools: add, lookup" in str(info.value)


def test_call_tool_without_tools_says_there_are_none(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("call_tool('anything')")
    assert info.value.error_type == "RuntimeError"
    assert "there are no tools" in str(info.value)


def test_call_tool_with_non_string_name_raises_type_error(make_interp):
    interp = make_interp(tools={"add": add})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("call_tool(add, 1, 2)")
    assert info.value.error_type == "TypeError"


# ---------------------------------------------------------------------------------------------------------
# live updates of the tool table
# ---------------------------------------------------------------------------------------------------------


def test_tool_replaced_after_start_takes_effect_on_next_execute(make_interp):
    interp = make_interp(tools={"op": add})
    assert interp.execute("op(3, 4)") == 7
    interp.tools["op"] = lambda a, b: a * b
    assert interp.execute("op(3, 4)") == 12


def test_tool_replaced_is_used_through_saved_reference(make_interp):
    interp = make_interp(tools={"op": add})
    interp.execute("saved = op")
    interp.tools["op"] = lambda a, b: a * b
    assert interp.execute("saved(3, 4)") == 12


def test_removed_tool_revokes_saved_reference(make_interp):
    calls = []

    def secret():
        calls.append(1)
        return "secret"

    interp = make_interp(tools={"secret": secret})
    interp.execute("saved = secret")
    del interp.tools["secret"]
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("saved()")
    assert info.value.error_type == "RuntimeError"
    assert "not available" in str(info.value)
    assert calls == []


def test_removed_tool_global_is_deleted(make_interp):
    interp = make_interp(tools={"secret": lambda: 1})
    interp.execute("1")
    del interp.tools["secret"]
    assert interp.execute("'secret' in globals()") is False


def test_removed_tool_does_not_delete_code_rebound_global(make_interp):
    interp = make_interp(tools={"helper": lambda: 1})
    interp.execute("helper = 'mine'")
    del interp.tools["helper"]
    assert interp.execute("helper") == "mine"


def test_tool_added_after_start_is_available(interp):
    interp.execute("1")
    interp.tools["late"] = lambda: "late"
    assert interp.execute("late()") == "late"


def test_tools_dict_replaced_wholesale_via_clear_and_update(make_interp):
    interp = make_interp(tools={"old": lambda: "old"})
    interp.execute("1")
    interp.tools.clear()
    interp.tools.update(new=lambda: "new")
    assert interp.execute("new(), 'old' in globals()") == ("new", False)


@pytest.mark.parametrize("name", ["not valid", "class", "1x"])
def test_invalid_tool_name_raises_value_error_at_next_execute(interp, name):
    interp.tools[name] = add
    # dspy's wording and type (CodeInterpreterError), and a ValueError.
    with pytest.raises(
        CodeInterpreterError, match="Invalid tool name: .* (not a valid Python identifier|is a Python keyword)"
    ) as info:
        interp.execute("1")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", ["SUBMIT", "FINAL", "FINAL_VAR", "call_tool", "print"])
def test_reserved_tool_name_raises_value_error_at_next_execute(interp, name):
    interp.tools[name] = add
    with pytest.raises(ValueError, match="reserved"):
        interp.execute("1")


def test_session_works_after_bad_tool_name_is_removed(interp):
    interp.execute("x = 1")
    interp.tools["SUBMIT"] = add
    with pytest.raises(ValueError):
        interp.execute("x = 2")
    del interp.tools["SUBMIT"]
    assert interp.execute("x") == 1


def test_non_callable_tool_raises_type_error(interp):
    interp.tools["value"] = 42
    with pytest.raises(TypeError, match="not callable"):
        interp.execute("1")


# ---------------------------------------------------------------------------------------------------------
# errors crossing the bridge
# ---------------------------------------------------------------------------------------------------------


def test_tool_key_error_arrives_as_key_error_catchable_in_sandbox(make_interp):
    def fails():
        raise KeyError("nope")

    interp = make_interp(tools={"fails": fails})
    code = "try:\n    fails()\nexcept KeyError as e:\n    r = ['caught', str(e)]\nr"
    kind, message = interp.execute(code)
    assert kind == "caught"
    assert "tool 'fails'" in message
    assert "nope" in message


def test_tool_value_error_arrives_as_value_error_catchable_in_sandbox(make_interp):
    def fails():
        raise ValueError("bad value")

    interp = make_interp(tools={"fails": fails})
    code = "try:\n    fails()\nexcept ValueError as e:\n    r = str(e)\nr"
    assert interp.execute(code) == "tool 'fails' failed with ValueError: bad value"


@pytest.mark.parametrize("error", [ValueError("bad"), KeyError("k"), FileNotFoundError(2, "gone"), TimeoutError("slow")])
def test_a_tools_builtin_error_is_caught_by_its_type_and_by_runtime_error_as_in_dspy(make_interp, error):
    # dspy's interpreter raises every tool failure as RuntimeError("ValueError: ..."); code written for it
    # catches RuntimeError, code written for CPython catches the tool's own type: both work.
    def fails():
        raise error

    interp = make_interp(tools={"fails": fails})
    name = type(error).__name__
    code = f"try:\n    fails()\nexcept RuntimeError as e:\n    caught = (type(e).__name__, isinstance(e, {name}), str(e))\ncaught"
    caught_name, is_own_type, message = interp.execute(code)
    assert (caught_name, is_own_type) == (name, True)
    assert f"tool 'fails' failed with {name}: " in message


def test_uncaught_tool_error_keeps_its_builtin_type(make_interp):
    def fails():
        raise KeyError("nope")

    interp = make_interp(tools={"fails": fails})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("fails()")
    assert info.value.error_type == "KeyError"
    assert "tool 'fails'" in str(info.value)


def test_tool_custom_host_exception_arrives_as_runtime_error_naming_type(make_interp):
    class QuotaExceeded(Exception):
        pass

    def fails():
        raise QuotaExceeded("limit hit")

    interp = make_interp(tools={"fails": fails})
    code = "try:\n    fails()\nexcept RuntimeError as e:\n    r = str(e)\nr"
    assert interp.execute(code) == "tool 'fails' failed with QuotaExceeded: limit hit"


@pytest.mark.parametrize("raised", [SystemExit, KeyboardInterrupt, GeneratorExit, BaseException])
def test_tool_base_exception_outside_exception_arrives_as_runtime_error(make_interp, raised):
    # `except Exception` in sandbox code must still catch what a tool raised.
    def fails():
        raise raised("stop")

    interp = make_interp(tools={"fails": fails})
    code = "try:\n    fails()\nexcept Exception as e:\n    r = (type(e).__name__, str(e))\nr"
    assert interp.execute(code) == ("RuntimeError", f"tool 'fails' failed with {raised.__name__}: stop")


def test_tool_returning_non_data_object_raises_type_error_naming_tool_with_strict_values(make_interp):
    interp = make_interp(tools={"weird": lambda: object()}, strict_values=True)
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("weird()")
    assert info.value.error_type == "TypeError"
    assert "tool 'weird' returned a value that has type 'object'" in str(info.value)


def test_tool_returning_model_gets_dict(make_interp):
    import pydantic

    class Hit(pydantic.BaseModel):
        title: str

    interp = make_interp(tools={"search": lambda: [Hit(title="a")]})
    assert interp.execute("search()[0]['title']") == "a"


def test_sandbox_object_as_keyword_arg_raises_type_error_naming_tool_and_argument(make_interp):
    calls = []
    interp = make_interp(tools={"store": lambda value: calls.append(value)})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("class C:\n    pass\nstore(value=C())")
    assert info.value.error_type == "TypeError"
    assert "tool 'store': argument 'value' has type 'C'" in str(info.value)
    assert calls == []


def test_sandbox_object_as_positional_arg_raises_type_error_naming_parameter(make_interp):
    interp = make_interp(tools={"store": lambda value: None})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("class C:\n    pass\nstore(C())")
    assert "tool 'store': argument 'value' has type 'C'" in str(info.value)


def test_sandbox_object_nested_in_arg_names_path(make_interp):
    interp = make_interp(tools={"store": lambda value: None})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("store({'k': [1, len]})")
    assert "argument 'value'['k'][1]" in str(info.value)


def test_session_works_after_tool_error(make_interp):
    def fails():
        raise ValueError("x")

    interp = make_interp(tools={"fails": fails, "add": add})
    with pytest.raises(CodeExecutionError):
        interp.execute("state = 'kept'\nfails()")
    assert interp.execute("add(1, 2), state") == (3, "kept")


# ---------------------------------------------------------------------------------------------------------
# volume, context, re-entry
# ---------------------------------------------------------------------------------------------------------


def test_ten_thousand_tool_calls_in_one_execute(make_interp):
    counter = []
    interp = make_interp(tools={"tick": lambda n: counter.append(n) or n + 1})
    assert interp.execute("n = 0\nfor _ in range(10_000):\n    n = tick(n)\nn") == 10_000
    assert len(counter) == 10_000


def test_tool_sees_callers_context_var(make_interp):
    var = contextvars.ContextVar("ri_test_var", default="unset")
    interp = make_interp(tools={"read": lambda: var.get()})
    token = var.set("main")
    try:
        assert interp.execute("read()") == "main"
    finally:
        var.reset(token)


def test_tool_sees_context_var_of_calling_thread(make_interp):
    var = contextvars.ContextVar("ri_test_thread_var", default="unset")
    interp = make_interp(tools={"read": lambda: var.get()})
    interp.execute("1")
    results = {}

    def run(label):
        var.set(label)
        results[label] = interp.execute("read()")

    threads = [threading.Thread(target=run, args=(f"thread-{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results == {f"thread-{n}": f"thread-{n}" for n in range(3)}
    assert interp.execute("read()") == "unset"


def _run_with_deadline(func, seconds=60):
    outcome = {}

    def target():
        try:
            outcome["value"] = func()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "execute() deadlocked"
    return outcome


def test_tool_reentering_same_interpreter_fails_without_deadlock(interp):
    seen = {}

    def reenter():
        try:
            return interp.execute("1")
        except BaseException as exc:
            seen["error"] = exc
            raise

    interp.tools["reenter"] = reenter
    outcome = _run_with_deadline(lambda: interp.execute("reenter()"))
    assert type(seen["error"]) is CodeInterpreterError
    error = outcome["error"]
    assert isinstance(error, CodeExecutionError)
    assert error.error_type == "RuntimeError"
    assert "CodeInterpreterError" in str(error)


def test_tool_reentry_error_is_catchable_in_sandbox_and_session_survives(interp):
    interp.tools["reenter"] = lambda: interp.execute("1")
    code = "try:\n    reenter()\nexcept RuntimeError:\n    r = 'caught'\nr"
    outcome = _run_with_deadline(lambda: interp.execute(code))
    assert outcome == {"value": "caught"}
    assert interp.execute("2 + 2") == 4


def test_tool_using_a_different_interpreter_works(make_interp):
    inner = make_interp()
    outer = make_interp(tools={"nested": lambda code: inner.execute(code)})
    outcome = _run_with_deadline(lambda: outer.execute("nested('6 * 7')"))
    assert outcome == {"value": 42}


def test_tool_raising_builtin_error_with_required_arguments_keeps_its_message(make_interp):
    def decode():
        return b"\xff".decode("utf-8")

    interp = make_interp(tools={"decode": decode})
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("decode()")
    message = str(info.value)
    assert "tool 'decode'" in message
    assert "can't decode byte 0xff" in message


def test_tool_os_error_arrives_as_same_type(make_interp):
    def missing():
        raise FileNotFoundError(2, "No such file", "x.txt")

    interp = make_interp(tools={"missing": missing})
    code = "try:\n    missing()\nexcept FileNotFoundError as e:\n    r = str(e)\nr"
    assert interp.execute(code) == "tool 'missing' failed with FileNotFoundError: [Errno 2] No such file: 'x.txt'"


def test_indirect_reentry_through_another_interpreter_does_not_deadlock():
    # A's tool runs B, whose tool calls back into A while A is still waiting for its own tool.
    first, second = RustInterpreter(), RustInterpreter()
    first.tools["ask_second"] = lambda: second.execute("back()")
    second.tools["back"] = lambda: first.execute("1")
    outcome = {}

    def run():
        try:
            outcome["value"] = first.execute("ask_second()")
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    deadlocked = thread.is_alive()
    if not deadlocked:  # shutting down a deadlocked interpreter would hang the test run too
        first.shutdown()
        second.shutdown()
    assert not deadlocked, "A -> B -> A re-entry deadlocked"
    assert isinstance(outcome.get("error"), CodeExecutionError)
