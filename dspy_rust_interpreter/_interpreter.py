"""``RustInterpreter``: DSPy's CodeInterpreter protocol over one sandboxed RustPython VM."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import time
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from . import _native, _zygote
from ._callbacks import active_callbacks, reported
from ._dspy_api import FLEX_EXECUTION_INSTRUCTIONS, capabilities, prepare_inputs
from ._errors import (
    CodeExecutionError,
    CodeInterpreterError,
    FinalAnswerResult,
    FinalOutput,
    InvalidNameError,
    InvalidValueError,
)
from ._files import SessionFiles
from ._locking import SessionLock
from ._mounts import describe_mounts
from ._names import check_global_name
from ._options import Configuration, check_options
from ._outcome import count_outcome, run_result
from ._packages import describe_packages
from ._tool_calls import ToolRuntime, build_tool_specs
from ._tool_context import CALLER_LOOP, RUNNING_TOOL_OF

if TYPE_CHECKING:
    from ._native import ToolSpec

# The protocol's result and error types are looked up on the interpreter's module (seeds/004: the conformance
# kit finds FinalAnswerResult there), so they are exported beside it.
__all__ = ["CodeExecutionError", "CodeInterpreterError", "FinalAnswerResult", "FinalOutput", "RustInterpreter"]

# SUBMIT/FINAL check a declared field's value against these simple types (the ones dspy's RLM declares).
FIELD_TYPES = frozenset({"str", "int", "float", "bool", "list", "dict", "NoneType"})

OutputFields = list[dict[str, Any]]


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
            raise InvalidNameError(f"Invalid output field name: {name!r} is not a valid Python identifier")
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


def new_session(configuration: Configuration, tools: list[ToolSpec] | None = None) -> _native.Session:
    """A native session of ``configuration``, from the zygote of its packages, which makes the stand-ins of
    ``tools`` (the first run's) before it forks: a new interpreter with the same tools then compiles none."""
    stand_ins = [(name, source) for name, _call, source in tools or ()]
    try:
        session = _zygote.spawn(configuration.packages, configuration.options, configuration.package_mounts(), stand_ins)
    except ValueError as error:  # a preload module the sandbox does not offer
        raise InvalidNameError(str(error)) from None
    except (RuntimeError, OSError, _native.PanicException) as error:
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
        "functions and classes persist across executions. Most of the standard library is available (json, re, "
        "math, collections, itertools, functools, datetime, statistics, random, dataclasses, typing, decimal, "
        "difflib, textwrap, hashlib, base64, csv, io, urllib.parse, xml.etree, email, configparser, gzip, "
        "zipfile, zoneinfo, sqlite3, ...; sqlite3 keeps its databases in memory); a module that needs the "
        "network, processes or native code raises ImportError saying so. concurrent.futures.ThreadPoolExecutor runs each task when it is "
        "submitted. open(), pathlib, os, glob, shutil "
        "and tempfile work on the sandbox's own filesystem, in memory and kept across executions; the host's files "
        "are not reachable (but for folders mounted for you, listed below if any), nor are environment variables, "
        "the network, subprocesses or threads. Host tools are global functions: call them "
        "with positional or keyword arguments, or as call_tool(name, ...). A cell may await at top level, and a "
        "tool called from async code returns an awaitable that runs on the host at the same time as others: "
        "results = await asyncio.gather(tool(a), tool(b)). print() output is returned to you, and what goes to "
        "stderr (warnings, logging) follows it under a line [stderr]. "
        "Call SUBMIT(...) with the output fields to finish; nothing after an accepted SUBMIT runs."
    )

    # dspy.Flex's notes for the code it writes (dspy's main branch reads them off the factory).
    flex_execution_instructions: ClassVar[str] = FLEX_EXECUTION_INSTRUCTIONS

    def __init__(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        output_fields: list[dict[str, Any]] | None = None,
        callbacks: list[Any] | None = None,
        *,
        _session: _native.Session | None = None,
        _on_shutdown: Callable[[], None] | None = None,
        _configuration: Configuration | None = None,
        **options: Any,
    ) -> None:
        """``options``: ``timeout`` (seconds per execute, default 30, None for none), ``abandon_after`` (grace
        in seconds for code that ignores a stop, default 5), ``max_output_chars`` (default 2,000,000),
        ``memory_limit`` (bytes, default 1 GiB, None for none), and for tools (docs/tools.md):
        ``tool_timeout`` (seconds per call, default None), ``max_tool_calls`` (per session, default None),
        ``max_tool_result_bytes`` (default None), ``slow_tool_seconds`` (warning threshold, default 5) and
        ``max_concurrent_tools`` (host threads for the calls async sandbox code has in flight, default 8;
        docs/asyncio.md).
        ``callbacks``: dspy ``BaseCallback`` handlers, told about start/execute/shutdown and each tool call
        (ignored when dspy is not imported)."""
        # A fork or a pool's interpreter takes its maker's configuration, checked once.
        self._configuration = _configuration if _configuration is not None else check_options(options)
        if self._configuration.options.host.mounts or self._configuration.packages:
            self.execution_instructions = instructions_for(self._configuration)
        self.callbacks: list[Any] = list(callbacks or [])
        self._runtime = ToolRuntime(self, self._configuration.options)
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
        return ConfiguredInterpreter(cls, options, instructions_for(check_options(limits)))

    def prepare_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The inputs as the sandbox gets them (dspy's main branch calls this once per run): each ``dspy.Image``
        becomes its URL or data URI, which the code hands to ``llm_query(..., images=[...])``."""
        return prepare_inputs(inputs)

    @property
    def files(self) -> SessionFiles:
        """The session's files, from the host: ``write(path, data)``, ``read(path)``, ``list()`` (docs/files.md)."""
        return SessionFiles(self._session_for)

    def files_written(self) -> list[str]:
        """The files the last ``execute()`` created or changed, in memory or in a mount (sandbox paths, sorted)."""
        return SessionFiles(self._session_for).written()

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
            raise InvalidValueError(f"code must be a str, not {type(code).__name__}")
        if not code.isascii():
            try:
                code.encode("utf-8")
            except UnicodeEncodeError as error:  # a lone surrogate (a model's JSON "\ud800"): CPython's compile() error
                raise CodeExecutionError(f"{type(error).__name__}: {error}") from None
        if variables is not None:
            if not isinstance(variables, dict):
                raise InvalidValueError(f"variables must be a dict or None, not {type(variables).__name__}")
            for name in variables:
                check_global_name(name, "variable")
        self._refuse_reentry("execute")
        with self._lock:
            if variables:
                clashing = sorted(set(variables) & set(self._tools))
                if clashing:
                    raise InvalidNameError(f"variable name(s) {clashing} would hide the tool(s) of the same name")
            tools, tools_snapshot = self._tool_update()
            session = self._ensure_session(tools)
            fields = self._output_fields
            field_specs = None if fields is None else [(f["name"], _declared_type(f)) for f in fields]
            # Tools run in the caller's contextvars context (dspy.context settings), copied for the run.
            context = contextvars.copy_context()
            runtime = self._runtime
            runtime.report_calls = active_callbacks(self)
            tool_seconds_before = runtime.stats.tool_seconds
            started = time.perf_counter()
            try:
                outcome = session.execute(code, variables or None, tools, field_specs, context, runtime.hooks)
            except _native.PanicException as panic:
                raise self._fail(panic) from None
            except TypeError as refused:  # a variable that cannot cross: nothing was sent or changed
                raise InvalidValueError(str(refused)) from None
            finally:
                # Streams live as long as the run that opened them: close what the code abandoned.
                runtime.close_streams()
                elapsed = time.perf_counter() - started
                runtime.stats.sandbox_seconds += max(0.0, elapsed - (runtime.stats.tool_seconds - tool_seconds_before))
            if tools is not None:
                # Only now is the sandbox's tool table current (a refused call installs nothing).
                self._synced_tools = tools_snapshot
                self._tools_registered = True
            count_outcome(runtime.stats, outcome)
        return run_result(outcome)

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

    def __call__(self, code: str, variables: dict[str, Any] | None = None) -> Any:
        """``execute(code, variables)``: dspy's interpreters are callable too."""
        return self.execute(code, variables)

    @reported
    def invoke_tool(self, tool_name: str, args: Any = (), kwargs: dict[str, Any] | None = None) -> Any:
        """Call one installed tool as sandbox code would (checks, guards, counters): ``invoke_tool(name, args,
        kwargs)``, or dspy's ``invoke_tool(name, kwargs)``. dspy callbacks report each tool call through it."""
        if isinstance(args, dict) and kwargs is None:
            args, kwargs = (), args
        call = self._runtime.calls.get(tool_name)
        if call is None:
            raise CodeInterpreterError(f"Unknown tool: {tool_name!r}; installed tools: {sorted(self._runtime.calls)}")
        return call.invoke(tuple(args), kwargs or {})

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
        if self._lock.acquire(timeout=self._configuration.options.session.abandon_after):
            try:
                self._session = None
            finally:
                self._lock.release()
        on_shutdown, self._on_shutdown = self._on_shutdown, None
        self._runtime.close_streams()
        self._runtime.concurrent.close()
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
            _configuration=self._configuration,
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

    def _ensure_session(self, tools: list[ToolSpec] | None = None) -> _native.Session:
        """The live session, started if there is none yet (its zygote making the stand-ins of ``tools``)."""
        if self._closed:
            raise CodeInterpreterError(
                "this RustInterpreter's session has ended (it was shut down); create a new one for a new session"
            )
        if self._failure is not None:
            raise CodeInterpreterError(self._failure)
        if self._session is None:
            self._session = new_session(self._configuration, tools)
        elif not self._session.alive:
            raise CodeInterpreterError(f"the sandbox session is dead: {self._session.death_reason}")
        return self._session

    @contextlib.contextmanager
    def _session_for(self, method: str) -> Iterator[_native.Session]:
        """The session, held for one operation of the host's (`method` names it if a tool tries to re-enter)."""
        self._refuse_reentry(method)
        with self._lock:
            yield self._ensure_session()

    def _refuse_reentry(self, method: str) -> None:
        # A tool runs while execute() waits for it, so a tool that calls back into this interpreter (directly,
        # or through another interpreter's tool) would wait on our own lock forever: say so instead.
        session = self._session
        if (session is not None and session.would_wait_on_itself()) or id(self) in RUNNING_TOOL_OF.get():
            raise CodeInterpreterError(
                f"RustInterpreter cannot execute recursively from one of its tools: {method}() was called from "
                "inside a tool that this interpreter is waiting for; a tool cannot re-enter the sandbox that is "
                "calling it (use a separate RustInterpreter for nested code)"
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


def _declared_type(field: dict[str, Any]) -> str | None:
    declared = field.get("type")
    return declared if declared in FIELD_TYPES else None


def instructions_for(configuration: Configuration) -> str:
    """The execution instructions of an interpreter so configured: its mounts and packages told."""
    parts = [RustInterpreter.execution_instructions]
    if configuration.options.host.mounts:
        parts.append(describe_mounts(configuration.options.host.mounts))
    if configuration.packages:
        parts.append(describe_packages(configuration.packages))
    return "\n".join(parts)


class ConfiguredInterpreter:
    """``RustInterpreter.configured(**options)``: calling it makes an interpreter with those options. Picklable
    (its options are), so it can travel to worker processes. Its ``execution_instructions`` (dspy reads them on
    every call) were made once, with the options (a listing of the mounts walks their folders)."""

    def __init__(self, cls: type[RustInterpreter], options: dict[str, Any], execution_instructions: str) -> None:
        self._cls = cls
        self.options = dict(options)
        self.execution_instructions = execution_instructions
        self.flex_execution_instructions = cls.flex_execution_instructions
        if hasattr(cls, "capabilities"):
            self.capabilities = cls.capabilities

    def __call__(self) -> RustInterpreter:
        return self._cls(**self.options)

    def __repr__(self) -> str:
        return f"{self._cls.__name__}.configured({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"


# Declared only where the installed dspy has capability flags (it refuses any other kind of value there).
if (_capabilities := capabilities()) is not None:
    RustInterpreter.capabilities = _capabilities  # type: ignore[attr-defined]
