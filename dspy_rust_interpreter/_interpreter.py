"""``RustInterpreter``: DSPy's CodeInterpreter protocol over one sandboxed RustPython VM."""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from . import _native, _zygote
from ._native import OutcomeKind, StopReason
from ._callbacks import active_callbacks, reported
from ._errors import CodeExecutionError, CodeInterpreterError, FinalAnswerResult, FinalOutput
from ._files import SessionFiles, check_distinct, check_mounts, describe_mounts, dspy_path_mounts
from ._locking import SessionLock
from ._tool_calls import CALLER_LOOP, RUNNING_TOOL_OF, ToolRuntime, estimate_size
from ._tools import build_tool_specs, check_global_name

if TYPE_CHECKING:
    from ._native import ToolSpec

__all__ = ["RustInterpreter"]

# SUBMIT/FINAL check a declared field's value against these simple types (the ones dspy's RLM declares).
FIELD_TYPES = frozenset({"str", "int", "float", "bool", "list", "dict", "NoneType"})

OutputFields = list[dict[str, Any]]

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
    # Host folders (or files) shown in the sandbox's filesystem: [Mount("/data", "/host/corpus", mode="ro"), ...]
    # (docs/files.md). Everything else in it is the session's own, in memory.
    "mounts": (),
    # Bytes the session's files in memory hold at most, and bytes its writes may add to its mounts.
    "files_max_bytes": 256 << 20,
    # Files the session holds in memory at most (and entries it may create in its mounts).
    "files_max_count": 10_000,
    # dspy PythonInterpreter's file options, with its meaning: each path appears as /sandbox/<name>; read paths
    # read-only, write paths made if missing and written back to the host (kept in the session with
    # sync_files=False).
    "enable_read_paths": (),
    "enable_write_paths": (),
    "sync_files": True,
}


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
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
    if tool_timeout is not None and not _positive_number(tool_timeout):
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
    if not isinstance(merged["sync_files"], bool):
        raise ValueError(f"sync_files must be True or False, got {merged['sync_files']!r}")
    merged["mounts"] = check_mounts(merged["mounts"]) + dspy_path_mounts(
        merged["enable_read_paths"] or (), merged["enable_write_paths"] or (), merged["sync_files"]
    )
    check_distinct(merged["mounts"])
    merged["enable_read_paths"] = merged["enable_write_paths"] = ()
    if not _positive_number(merged["slow_tool_seconds"]):
        raise ValueError(f"slow_tool_seconds must be a positive number of seconds, got {merged['slow_tool_seconds']!r}")
    return merged


def _positive_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0


def _normalise_output_fields(fields: Any) -> OutputFields | None:
    if fields is None:
        return None
    if isinstance(fields, (str, bytes)) or not hasattr(fields, "__iter__"):
        raise TypeError("output_fields must be a list of {'name': ..., 'type': ...} dicts, or None")
    normalised = []
    seen = set()
    for field in fields:
        if not isinstance(field, dict) or not isinstance(field.get("name"), str):
            raise TypeError(f"each output field must be a dict with a 'name' string, got {field!r}")
        name = field["name"]
        if not name.isidentifier():
            raise ValueError(f"output field name {name!r} is not a valid Python identifier")
        if name in seen:
            raise ValueError(f"output field {name!r} is declared twice")
        seen.add(name)
        normalised.append(dict(field))
    return normalised


# Every native session not yet collected: at interpreter exit their processes are ended (they would end
# anyway with the zygote, which ends when this process does).
_LIVE_SESSIONS: weakref.WeakSet[_native.Session] = weakref.WeakSet()


@atexit.register
def _shut_down_live_sessions() -> None:
    for session in list(_LIVE_SESSIONS):
        session.shutdown()


def new_session(options: dict[str, Any]) -> _native.Session:
    """A native session with the VM limits among checked ``options`` (see ``_check_options``)."""
    try:
        session = _zygote.spawn(
            timeout=options["timeout"],
            abandon_after=options["abandon_after"],
            max_output_chars=options["max_output_chars"],
            memory_limit=options["memory_limit"],
            preload=list(options["preload"]),
            mounts=list(options["mounts"]),
            files_max_bytes=options["files_max_bytes"],
            files_max_count=options["files_max_count"],
        )
    except (RuntimeError, ConnectionError, _native.PanicException) as error:
        raise CodeInterpreterError(f"the sandbox could not be started: {error}") from None
    except FileNotFoundError as error:
        raise CodeInterpreterError(f"the sandbox could not be started: {error}") from None
    _LIVE_SESSIONS.add(session)
    return session


class RustInterpreter:
    """A sandboxed Python session for DSPy's ``CodeInterpreter`` protocol.

    Code runs in a RustPython VM in a confined process of its own, forked from a prepared zygote: full Python
    semantics and a curated standard library, no access to the host's files, environment, network or
    processes. When that process dies (a crash, an allocation that cannot fail, a native operation that
    ignores the time limit) the session goes on from its state before the failed cell. Host functions in ``tools`` are callable as globals; ``SUBMIT``/``FINAL``/``FINAL_VAR`` end a
    run with the output fields. Globals persist across ``execute()`` calls until ``shutdown()``.

    Use it wherever dspy takes an interpreter: ``dspy.RLM(..., interpreter_factory=RustInterpreter)``.
    """

    execution_instructions: ClassVar[str] = (
        "Code runs in a sandboxed Python 3 interpreter (RustPython) in a process of its own. Globals, imports, "
        "functions and classes persist across executions. The standard library's pure modules are available "
        "(json, re, math, collections, itertools, functools, datetime, statistics, random, dataclasses, typing, "
        "decimal, fractions, difflib, textwrap, hashlib, base64, csv, io, ...). open(), pathlib, os, glob, shutil "
        "and tempfile work on the sandbox's own filesystem, in memory and kept across executions; the host's files "
        "are not reachable (but for folders mounted for you, listed below if any), nor are environment variables, "
        "the network, subprocesses or threads. Host tools are global functions: call them "
        "with positional or keyword arguments, or as call_tool(name, ...). A cell may await at top level, and a "
        "tool called from async code returns an awaitable that runs on the host at the same time as others: "
        "results = await asyncio.gather(tool(a), tool(b)). print() output is returned to you. "
        "Call SUBMIT(...) with the output fields to finish; nothing after an accepted SUBMIT runs."
    )

    def __init__(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        output_fields: list[dict[str, Any]] | None = None,
        callbacks: list[Any] | None = None,
        *,
        _session: _native.Session | None = None,
        _on_shutdown: Callable[[], None] | None = None,
        **options: Any,
    ) -> None:
        """``options``: ``timeout`` (seconds per execute, default 30, None for none), ``abandon_after`` (grace
        in seconds for code that ignores a stop, default 5), ``max_output_chars`` (default 10,000,000),
        ``memory_limit`` (bytes, default 1 GiB, None for none), and for tools (docs/tools.md):
        ``tool_timeout`` (seconds per call, default None), ``max_tool_calls`` (per session, default None),
        ``max_tool_result_bytes`` (default None), ``slow_tool_seconds`` (warning threshold, default 5) and
        ``max_concurrent_tools`` (host threads for the calls async sandbox code has in flight, default 8;
        docs/asyncio.md).
        ``callbacks``: dspy ``BaseCallback`` handlers, told about start/execute/shutdown and each tool call
        (ignored when dspy is not imported)."""
        self._options = _check_options(options)
        if self._options["mounts"]:
            self.execution_instructions = instructions_with_mounts(self._options["mounts"])
        self.callbacks: list[Any] = list(callbacks or [])
        self._runtime = ToolRuntime(self, self._options)
        self._tools: dict[str, Callable[..., Any]] = dict(tools) if tools else {}
        self.output_fields = output_fields
        # dspy's RLM resets this to False when it hands us new tools; we re-sync tools whenever it is False.
        self._tools_registered = False
        self._synced_tools: tuple[tuple[str, Any], ...] | None = None
        # A pool hands over a session it built ahead of time, and wants to know when it is given back.
        self._session: _native.Session | None = _session
        self._on_shutdown = _on_shutdown
        self._closed = False
        self._failure: str | None = None
        self._lock = SessionLock("this RustInterpreter")

    @classmethod
    def configured(cls, **options: Any) -> ConfiguredInterpreter:
        """A picklable factory of interpreters with these options (``dspy.RLM(interpreter_factory=...)``), which
        carries the ``execution_instructions`` they have (with their mounts listed)."""
        limits = {name: value for name, value in options.items() if name not in ("tools", "output_fields", "callbacks")}
        mounts = _check_options(limits)["mounts"]
        instructions = instructions_with_mounts(mounts) if mounts else cls.execution_instructions
        return ConfiguredInterpreter(cls, options, instructions)

    @property
    def files(self) -> SessionFiles:
        """The session's files, from the host: ``write(path, data)``, ``read(path)``, ``list()`` (docs/files.md)."""
        return SessionFiles(self)

    def files_written(self) -> list[str]:
        """The files the last ``execute()`` created or changed, in memory or in a mount (sandbox paths, sorted)."""
        return SessionFiles(self).written()

    # -- protocol surface -------------------------------------------------------------------------------------

    @property
    def tools(self) -> dict[str, Callable[..., Any]]:
        """The host functions sandbox code may call, by global name. Mutate it freely between calls."""
        return self._tools

    @property
    def output_fields(self) -> OutputFields | None:
        """The fields ``SUBMIT``/``FINAL`` must provide: ``[{"name": ..., "type": "str"|"int"|...}, ...]``."""
        return self._output_fields

    @output_fields.setter
    def output_fields(self, fields: Any) -> None:
        self._output_fields = _normalise_output_fields(fields)

    @reported
    def start(self) -> None:
        """Create the sandbox (its session process). Idempotent; an error after ``shutdown()``."""
        self._refuse_reentry("start")
        with self._lock:
            self._ensure_session()

    @reported
    def execute(self, code: str, variables: dict[str, Any] | None = None) -> Any:
        """Run ``code`` in the session, after binding ``variables`` as globals.

        Returns ``FinalOutput`` for ``SUBMIT``, ``FinalAnswerResult`` for ``FINAL``/``FINAL_VAR``; otherwise the
        printed text (with the repr of a trailing expression's value appended), or the trailing expression's
        value when nothing was printed, or None. Raises ``SyntaxError`` for code that does not parse,
        ``CodeExecutionError`` for an exception in the code (the session stays usable), and
        ``CodeInterpreterError`` when the session is shut down.
        """
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, not {type(code).__name__}")
        if variables is not None:
            if not isinstance(variables, dict):
                raise TypeError(f"variables must be a dict or None, not {type(variables).__name__}")
            for name in variables:
                check_global_name(name, "variable")
        self._refuse_reentry("execute")
        with self._lock:
            session = self._ensure_session()
            if variables:
                clashing = sorted(set(variables) & set(self._tools))
                if clashing:
                    raise ValueError(f"variable name(s) {clashing} would hide the tool(s) of the same name")
            tools, tools_snapshot = self._tool_update()
            fields = self._output_fields
            field_specs = None if fields is None else [(f["name"], _declared_type(f)) for f in fields]
            # Tools run in the caller's contextvars context (dspy.context settings), copied for the run.
            context = contextvars.copy_context()
            runtime = self._runtime
            runtime.report_calls = active_callbacks(self)
            tool_seconds_before = runtime.stats.tool_seconds
            started = time.perf_counter()
            try:
                outcome = session.execute(code, variables or None, tools, field_specs, context, runtime.concurrent_calls())
            except _native.PanicException as panic:
                raise self._fail(panic) from None
            finally:
                # Streams live as long as the run that opened them: close what the code abandoned.
                runtime.close_streams()
                elapsed = time.perf_counter() - started
                runtime.stats.sandbox_seconds += max(0.0, elapsed - (runtime.stats.tool_seconds - tool_seconds_before))
            if tools is not None:
                # Only now is the sandbox's tool table current (a refused call installs nothing).
                self._synced_tools = tools_snapshot
                self._tools_registered = True
            _count_outcome(runtime.stats, outcome)
        return _outcome_to_result(outcome)

    async def aexecute(self, code: str, variables: dict[str, Any] | None = None) -> Any:
        """``execute()`` for async callers: waits on a helper thread, so the event loop is not blocked.

        Async tools then run on this caller's event loop (they may use its clients and sessions), and the
        caller's contextvars reach the tools as with ``execute()``. Cancelling the task stops the code.
        """
        token = CALLER_LOOP.set(asyncio.get_running_loop())
        try:
            # asyncio.to_thread runs execute in a copy of this context (CALLER_LOOP included).
            return await asyncio.to_thread(self.execute, code, variables)
        except asyncio.CancelledError:
            # The thread cannot be cancelled, its run can: stop the code, so the session is free again.
            session = self._session
            if session is not None:
                session.interrupt()
            raise
        finally:
            CALLER_LOOP.reset(token)

    @reported
    def invoke_tool(self, tool_name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Call one installed tool as sandbox code would (checks, guards, counters). dspy's interpreters
        have this method too: dspy callbacks report each tool call through it."""
        call = self._runtime.calls.get(tool_name)
        if call is None:
            raise CodeInterpreterError(f"unknown tool {tool_name!r}; installed tools: {sorted(self._runtime.calls)}")
        return call.invoke(tuple(args), kwargs)

    def stats(self) -> dict[str, Any]:
        """Counters of this session: executes, errors, limit hits, tool calls and errors per tool, seconds in
        the sandbox and in tools, characters of output. A fresh dict each time."""
        return self._runtime.stats.snapshot()

    @reported
    def shutdown(self) -> None:
        """End the session: its process is killed at once, whatever its code is doing (a run in progress on
        another thread returns). Idempotent; the instance cannot be used again."""
        self._refuse_reentry("shutdown")
        self._closed = True
        session = self._session
        if session is not None:
            # Not under the lock, which a run in progress holds: this ends that run.
            session.shutdown()
        # A run still finishing a host tool call lets go of the session itself when it returns.
        if self._lock.acquire(timeout=self._options["abandon_after"]):
            try:
                self._session = None
            finally:
                self._lock.release()
        on_shutdown, self._on_shutdown = self._on_shutdown, None
        self._runtime.close_streams()
        self._runtime.close_concurrent_calls()
        if on_shutdown is not None:
            on_shutdown()

    @reported
    def fork(self) -> RustInterpreter:
        """A new interpreter holding an identical, independent copy of this session (variables, functions,
        classes, imports), with the same tools, output fields, callbacks and options: for branching agents and
        best-of-N. The copy is made by forking the session's process, so it costs little whatever its size."""
        self._refuse_reentry("fork")
        with self._lock:
            session = self._ensure_session()
            try:
                copy = session.fork()
            except RuntimeError as error:
                raise CodeInterpreterError(str(error)) from None
        _LIVE_SESSIONS.add(copy)
        return RustInterpreter(
            tools=dict(self._tools),
            output_fields=self._output_fields,
            callbacks=list(self.callbacks),
            _session=copy,
            **self._options,
        )

    def __enter__(self) -> RustInterpreter:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()

    def __repr__(self) -> str:
        state = "shut down" if self._closed else ("running" if self._session is not None else "not started")
        return f"<RustInterpreter {state}, tools={sorted(self._tools)}>"

    # -- internals --------------------------------------------------------------------------------------------

    def _fail(self, panic: BaseException) -> CodeInterpreterError:
        """A Rust panic behind the native handle: the session cannot be trusted any more."""
        self._failure = f"internal error in the native layer ({panic}); the session is dead, create a new interpreter"
        session, self._session = self._session, None
        if session is not None:
            try:
                session.shutdown()
            except BaseException:  # noqa: BLE001 - the handle is broken; the worker exits on its own
                pass
        return CodeInterpreterError(self._failure)

    def _ensure_session(self) -> _native.Session:
        if self._closed:
            raise CodeInterpreterError("this RustInterpreter was shut down; create a new one for a new session")
        if self._failure is not None:
            raise CodeInterpreterError(self._failure)
        if self._session is None:
            self._session = new_session(self._options)
        elif not self._session.alive:
            raise CodeInterpreterError(f"the sandbox session is dead: {self._session.death_reason}")
        return self._session

    def _refuse_reentry(self, method: str) -> None:
        # A tool runs while execute() waits for it, so a tool that calls back into this interpreter (directly,
        # or through another interpreter's tool) would wait on our own lock forever: say so instead.
        session = self._session
        if (session is not None and session.would_wait_on_itself()) or id(self) in RUNNING_TOOL_OF.get():
            raise CodeInterpreterError(
                f"{method}() was called from inside a tool that this interpreter is waiting for; a tool cannot "
                "re-enter the sandbox that is calling it (use a separate RustInterpreter for nested code)"
            )

    def _tool_update(self) -> tuple[list[ToolSpec] | None, tuple[tuple[str, Any], ...]]:
        """The tool table to install before this run (None when the sandbox's is current), and its snapshot."""
        current = tuple(self._tools.items())
        synced = self._synced_tools
        if (
            self._tools_registered
            and synced is not None
            and len(synced) == len(current)
            and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(synced, current))
        ):
            return None, current
        return build_tool_specs(self._tools, self._runtime), current


def _count_outcome(stats: Any, outcome: _native.RunOutcome) -> None:
    stats.executes += 1
    kind = outcome.kind
    if kind is OutcomeKind.Value:
        value = outcome.value
        stats.output_chars += len(value) if type(value) is str else estimate_size(value, 1 << 20)
    elif kind is OutcomeKind.Syntax:
        stats.errors += 1
    elif kind is OutcomeKind.Error:
        stats.errors += 1
        stats.output_chars += len(outcome.output)
        if outcome.stop is StopReason.Memory or outcome.error_type == "MemoryError":
            stats.memory_errors += 1
        elif outcome.stop is StopReason.Timeout:
            stats.timeouts += 1
        if outcome.rolled_back:
            stats.rollbacks += 1


def _declared_type(field: dict[str, Any]) -> str | None:
    declared = field.get("type")
    return declared if declared in FIELD_TYPES else None


def _outcome_to_result(outcome: _native.RunOutcome) -> Any:
    kind = outcome.kind
    if kind is OutcomeKind.Value:
        return outcome.value
    if kind is OutcomeKind.Submit:
        return FinalOutput(outcome.value)
    if kind is OutcomeKind.Final:
        return FinalAnswerResult(outcome.value)
    if kind is OutcomeKind.Syntax:
        raise SyntaxError(outcome.message, ("<sandbox>", outcome.lineno, outcome.offset, outcome.text))
    if kind is OutcomeKind.Error:
        error_type, message, traceback, output = outcome.error_type, outcome.message, outcome.traceback, outcome.output
        text = f"{error_type}: {message}" if message else error_type
        if traceback:
            text += f"\n\n{traceback}"
        if output:
            text += f"\n\nOutput printed before the error:\n{output}"
        raise CodeExecutionError(text, error_type=error_type, traceback=traceback, output=output)
    raise CodeInterpreterError(outcome.message)


def instructions_with_mounts(mounts: tuple[Any, ...]) -> str:
    return RustInterpreter.execution_instructions + "\n" + describe_mounts(mounts)


class ConfiguredInterpreter:
    """``RustInterpreter.configured(**options)``: calling it makes an interpreter with those options. Picklable
    (its options are), so it can travel to worker processes. Its ``execution_instructions`` (dspy reads them on
    every call) were made once, with the options (a listing of the mounts walks their folders)."""

    def __init__(self, cls: type[RustInterpreter], options: dict[str, Any], execution_instructions: str) -> None:
        self._cls = cls
        self.options = dict(options)
        self.execution_instructions = execution_instructions

    def __call__(self) -> RustInterpreter:
        return self._cls(**self.options)

    def __repr__(self) -> str:
        return f"{self._cls.__name__}.configured({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"

