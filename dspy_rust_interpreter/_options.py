"""Every option of ``RustInterpreter`` and ``InterpreterPool``: defaults, and their checks, in one place."""

from __future__ import annotations

import logging
from typing import Any

from ._files import check_mounts, dspy_path_mounts
from ._packages import package_mounts, resolve_packages, with_preload

__all__ = ["DEFAULT_OPTIONS", "check_options"]

logger = logging.getLogger("dspy_rust_interpreter")

# Limits, each settable per instance as a keyword option: RustInterpreter(timeout=None, ...).
DEFAULT_OPTIONS: dict[str, Any] = {
    # Seconds of sandbox execution per execute() (time inside host tools is not counted); None: no limit.
    "timeout": 30.0,
    # Seconds that code ignoring a stop (a long native operation) gets before the session is abandoned.
    "abandon_after": 5.0,
    # Characters of printed output kept per execute(); the rest is dropped with a note saying how much.
    "max_output_chars": 10_000_000,
    # Bytes the sandbox's VM may hold; growth past it is stopped with MemoryError. None: no limit.
    "memory_limit": 1 << 30,
    # Seconds one tool call may take before the sandbox gets TimeoutError (the host call may go on, in a
    # thread); None: no limit. Async tools are cancelled instead.
    "tool_timeout": None,
    # Tool calls per session (until shutdown); past it every call raises RuntimeError. None: unlimited.
    "max_tool_calls": None,
    # Size of one tool result (or streamed item), estimated cheaply; past it the call raises. None: no limit.
    "max_tool_result_bytes": None,
    # A tool call taking longer than this is logged as a warning on the "dspy_rust_interpreter" logger.
    "slow_tool_seconds": 5.0,
    # Tool calls that async sandbox code has in flight at once (`await asyncio.gather(search(a), ...)`) run
    # on this many host threads at most; more wait for a free one.
    "max_concurrent_tools": 8,
    # Modules imported while the sandbox is built, so that the code's first `import` of them is a lookup
    # (InterpreterPool builds its sandboxes ahead of time: there, this costs no one any waiting).
    "preload": (),
    # Pure-Python packages the sandbox may import: installed distributions' names (with what they require) or
    # folders of modules, shown read-only under /packages (docs/packages.md).
    "packages": (),
    # Host folders (or files) shown in the sandbox's filesystem: [Mount("/data", "/host/corpus", mode="ro"), ...]
    # (docs/files.md). Everything else in it is the session's own, in memory.
    "mounts": (),
    # Bytes the session's files in memory hold at most, and bytes its writes may add to its mounts.
    "files_max_bytes": 256 << 20,
    # A tool result (or streamed item) holding a value of no kind the sandbox has an equivalent for crosses as
    # its str(), with a warning, as in dspy's own interpreter; True refuses it (the code gets a TypeError).
    "strict_values": False,
    # Files the session holds in memory at most (and entries it may create in its mounts).
    "files_max_count": 10_000,
    # dspy PythonInterpreter's file options, with its meaning: each path appears as /sandbox/<name>; read paths
    # read-only, write paths made if missing and written back to the host (kept in the session with
    # sync_files=False).
    "enable_read_paths": (),
    "enable_write_paths": (),
    "sync_files": True,
    # dspy PythonInterpreter's other options. deno_command: Deno's command line, accepted and ignored (with a
    # warning) as there is no Deno. enable_env_vars / enable_network_access: the sandbox has neither, so
    # anything but None or empty is refused with what to do instead.
    "deno_command": None,
    "enable_env_vars": None,
    "enable_network_access": None,
}


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise TypeError(
            f"RustInterpreter() got unexpected option(s) {', '.join(unknown)}; "
            f"the options are: {', '.join(sorted(DEFAULT_OPTIONS))}"
        )
    merged = {**DEFAULT_OPTIONS, **options}
    timeout = merged["timeout"]
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    abandon_after = merged["abandon_after"]
    if isinstance(abandon_after, bool) or not isinstance(abandon_after, (int, float)) or not abandon_after > 0:
        raise ValueError(f"abandon_after must be a positive number of seconds, got {abandon_after!r}")
    memory = merged["memory_limit"]
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0):
        raise ValueError(f"memory_limit must be a positive number of bytes or None, got {memory!r}")
    cap = merged["max_output_chars"]
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ValueError(f"max_output_chars must be a non-negative int, got {cap!r}")
    tool_timeout = merged["tool_timeout"]
    if tool_timeout is not None and not positive_number(tool_timeout):
        raise ValueError(f"tool_timeout must be a positive number of seconds or None, got {tool_timeout!r}")
    concurrent = merged["max_concurrent_tools"]
    if isinstance(concurrent, bool) or not isinstance(concurrent, int) or concurrent < 1:
        raise ValueError(f"max_concurrent_tools must be a positive int, got {concurrent!r}")
    for name in ("max_tool_calls", "max_tool_result_bytes"):
        value = merged[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} must be a non-negative int or None, got {value!r}")
    preload = merged["preload"]
    if isinstance(preload, str) or not isinstance(preload, (list, tuple)) or not all(
        isinstance(name, str) and all(part.isidentifier() for part in name.split(".")) for name in preload
    ):
        raise ValueError(f"preload must be a list or tuple of module names, got {preload!r}")
    merged["preload"] = tuple(preload)
    for name in ("files_max_bytes", "files_max_count"):
        value = merged[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}")
    if not isinstance(merged["strict_values"], bool):
        raise ValueError(f"strict_values must be True or False, got {merged['strict_values']!r}")
    if not isinstance(merged["sync_files"], bool):
        raise ValueError(f"sync_files must be True or False, got {merged['sync_files']!r}")
    _check_deno_options(merged)
    if not positive_number(merged["slow_tool_seconds"]):
        raise ValueError(f"slow_tool_seconds must be a positive number of seconds, got {merged['slow_tool_seconds']!r}")
    # Last: dspy's write paths are made on the host here, once every other option is known to be good.
    mounts = check_mounts(merged["mounts"])
    merged["mounts"] = mounts + dspy_path_mounts(
        merged["enable_read_paths"] or (), merged["enable_write_paths"] or (), merged["sync_files"], mounts
    )
    merged["enable_read_paths"] = merged["enable_write_paths"] = ()
    merged["packages"] = with_preload(resolve_packages(merged["packages"]), merged["preload"])
    check_mounts(tuple(merged["mounts"]) + tuple(package_mounts(merged["packages"])))
    return merged


def positive_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0


def _check_deno_options(merged: dict[str, Any]) -> None:
    """dspy PythonInterpreter's Deno options, checked as it checks them; once checked they are dropped (a
    fork or pool taking these options does not warn again)."""
    command = merged["deno_command"]
    if command is not None:
        if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
            raise TypeError(f"deno_command must be a list of strings or None, got {command!r}")
        logger.warning(
            "RustInterpreter ignores deno_command=%r: code runs in RustPython in a process of its own, not in Deno",
            command,
        )
    env_vars = merged["enable_env_vars"]
    if env_vars:
        raise ValueError(
            f"enable_env_vars={env_vars!r}: the sandbox sees none of the host's environment variables; pass the "
            "values the code needs as variables (execute(code, variables={...})) or through a tool"
        )
    network = merged["enable_network_access"]
    if network:
        raise ValueError(
            f"enable_network_access={network!r}: the sandbox has no network; give the code a tool that fetches "
            "what it needs (RustInterpreter(tools={'fetch': fetch}))"
        )
    merged["deno_command"] = merged["enable_env_vars"] = merged["enable_network_access"] = None
