"""Why each of dspy's interpreter tests that fails against RustInterpreter fails: the committed table that
tools/dspy_tests.py classifies failures by. A test is named ``file::test`` under dspy's ``tests/``.

- "Deno-specific": the test reads or patches the Deno/Pyodide machinery of dspy's PythonInterpreter (its
  process, JSON-RPC wire, Deno cache and command line, Pyodide's ``js``/``pyodide`` modules, its instructions
  to the model). It does not apply to another interpreter.
- "different": the test applies, and RustInterpreter deliberately behaves otherwise, for the reason given.
"""

from __future__ import annotations

from dataclasses import dataclass

DENO = "Deno-specific"
DIFFERENT = "different"

PY = "primitives/test_python_interpreter.py::"
RLM = "predict/test_rlm.py::"
POT = "predict/test_program_of_thought.py::"
CODE_ACT = "predict/test_code_act.py::"
FLEX = "flex/test_flex_interpreter.py::"


@dataclass(frozen=True)
class Reason:
    kind: str
    why: str
    tests: tuple[str, ...]


REASONS = (
    Reason(
        DENO,
        "reads or patches the Deno process, its JSON-RPC wire or its request ids",
        (
            PY + "test_process_death_ends_stateful_session",
            PY + "test_protocol_failure_ends_session",
            PY + "test_request_ids_are_128_bit_random_values",
            PY + "test_failed_health_check_ends_session",
            PY + "test_custom_deno_command_preserves_environment",
            PY + "test_out_of_band_messages_are_skipped_not_consumed_as_responses",
            PY + "test_id_less_protocol_errors_are_terminal",
            RLM + "TestPythonInterpreter::test_start_prewarms_sandbox",
            RLM + "TestPythonInterpreter::test_start_is_idempotent",
            POT + "test_pot_evaluate_creates_one_interpreter_per_example",
        ),
    ),
    Reason(
        DENO,
        "reads or patches Deno's cache directory, its command line or its permission flags",
        (
            PY + "test_default_runner_starts_offline_from_warm_shared_cache",
            PY + "test_custom_deno_command_is_unchanged",
            PY + "test_default_command_uses_managed_deno_for_info_and_run",
            PY + "test_default_command_revokes_shared_cache_after_startup",
            PY + "test_rejects_write_paths_overlapping_runtime_files",
            PY + "test_deno_info_probe_is_bounded",
            PY + "test_explicit_deno_dir_skips_info_query",
            PY + "test_enable_read_paths_symlink",
        ),
    ),
    Reason(
        DENO,
        "calls PythonInterpreter's private JSON serialisation, injection or parameter helpers",
        (
            PY + "test_pydantic_json_values_are_compatible_with_large_variable_injection",
            PY + "test_json_mode_values_cross_every_host_to_sandbox_path",
            PY + "test_json_mode_coercion_preserves_existing_fallbacks",
            PY + "test_extract_parameters",
            PY + "test_extract_parameters_complex_types",
            PY + "test_small_variable_not_using_filesystem",
            PY + "test_large_variable_threshold_boundary",
        ),
    ),
    Reason(
        DENO,
        "runs Pyodide's own modules (js, pyodide.http) or expects sys.platform 'emscripten' in the sandbox",
        (
            PY + "test_default_runner_cannot_read_shared_deno_cache",
            PY + "test_guest_prototype_hook_cannot_redirect_tool_wrapper",
            PY + "test_interpreter_security_filesystem_access",
            PY + "test_enable_net_flag",
            RLM + "TestSandboxSecurity::test_no_network_access",
            FLEX + "test_nested_rlm_tool_provenance",
        ),
    ),
    Reason(
        DENO,
        "checks that the interpreter's instructions to the model are the Deno/Pyodide ones",
        (
            PY + "test_execution_instructions_are_class_metadata",
            RLM + "TestRLMInterpreterLifecycle::test_python_interpreter_lm_request_bytes",
        ),
    ),
    Reason(
        DENO,
        "reads a host environment variable through Deno's --allow-env (expects '' for an unset one)",
        (PY + "test_enable_env_vars_flag",),
    ),
    Reason(
        DIFFERENT,
        "values come back as the Python values they are (a tuple stays a tuple, a set a set), as "
        "exec() gives them; dspy's JSON bridge turns them into lists",
        (
            PY + "test_serialize_tuple",
            PY + "test_serialize_set_mixed_types",
            PY + "test_serialize_pydantic_nested_in_dict",
            PY + "test_nested_sets_and_tuples",
            PY + "test_multiple_large_variables",
            PY + "test_tool_returns_dataclass",
            PY + "test_tool_returns_nested_dataclass",
            PY + "test_tool_returns_typing_namedtuple",
        ),
    ),
    Reason(
        DIFFERENT,
        "a tool's datetime arrives as a datetime, not its ISO string (and a tuple stays a tuple)",
        (PY + "test_tool_returns_pydantic_model",),
    ),
    Reason(
        DIFFERENT,
        "a tool's None stays None and its NaN a float NaN; dspy's JSON bridge gives '' and 'nan'",
        (
            PY + "test_tool_returning_none",
            PY + "test_tool_returning_nan_falls_back_to_string",
        ),
    ),
    Reason(
        DIFFERENT,
        "a model field of no known kind crosses as its str() with a warning, like any other such "
        "value (strict_values=True refuses it); dspy's JSON dump fails the call",
        (PY + "test_tool_returning_unserializable_pydantic_model_raises_execution_error",),
    ),
    Reason(
        DIFFERENT,
        "a variable of no known kind is a TypeError naming its place in the value (dspy: "
        "CodeInterpreterError 'Unable to serialize ... as JSON')",
        (PY + "test_unserializable_pydantic_variable_raises_code_interpreter_error",),
    ),
    Reason(
        DIFFERENT,
        "one variable holds at most 1,000,000 values (the bound on host memory spent converting "
        "it); dspy's test injects 35 million (pass such data as a str, bytes or a mounted file)",
        (PY + "test_large_list_variable",),
    ),
    Reason(
        DIFFERENT,
        "errors use CPython's words, which the model reads, with the traceback of the cell: "
        "SyntaxError's own message (not 'Invalid Python syntax. message: ...'), ValueError: 42 (not "
        "the bridge's [42])",
        (
            PY + "test_failure_syntax_error",
            PY + "test_exception_args",
            CODE_ACT + "test_codeact_code_parse_failure",
            CODE_ACT + "test_codeact_code_execution_failure",
        ),
    ),
)

_KIND_OF = {test: reason.kind for reason in REASONS for test in reason.tests}


def kind_of(test: str) -> str | None:
    """The class of a failing test (``file::test`` under dspy's ``tests/``), or None when the table has no
    reason for it."""
    return _KIND_OF.get(test)
