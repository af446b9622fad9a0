"""Type stubs for the private extension module (see src/host/session.rs). Users never touch it directly."""

import os
from collections.abc import Callable
from contextvars import Context
from typing import Any, final

__all__ = [
    "Mount",
    "HostOptions",
    "Options",
    "SessionOptions",
    "PanicException",
    "RunOutcome",
    "SYSTEM_CALL_FILTER",
    "Session",
    "StopReason",
    "StreamOpened",
    "ToolHooks",
    "check_mount_paths",
    "serve_zygote",
    "stdlib_modules",
]

# Type aliases of the stub only (the allowlist `tools/stubtest-allowlist.txt` names them).
# (name, callable, source of the sandbox stand-in with the tool's signature, or None for a generic one)
ToolSpec = tuple[str, Callable[..., Any], str | None]
# (name, declared simple type or None)
FieldSpec = tuple[str, str | None]

# Whether session processes install the system-call filter: False only in the test build run under qemu-user
# (Cargo feature ``unfiltered-for-emulation``), never in a shipped wheel.
SYSTEM_CALL_FILTER: bool

class PanicException(BaseException):
    """PyO3's report of a Rust panic behind a method call."""

@final
class StopReason:
    """The limit that stopped a run."""

    Timeout: StopReason
    Memory: StopReason
    Interrupt: StopReason
    Crash: StopReason  # the session process crashed

class RunOutcome:
    """What one ``Session.execute()`` ended with: one class per way a run can end (src/host/outcome.rs).
    ``results_too_large``: tool results the run's calls got refused for max_tool_result_bytes."""

    @final
    class Value(RunOutcome):
        """No finish call: the printed text or the expression's value; ``value_size`` the size of its data."""

        __match_args__ = ("value", "value_size", "results_too_large")
        def __new__(cls, value: Any, value_size: int, results_too_large: int) -> RunOutcome.Value: ...
        @property
        def value(self) -> Any: ...
        @property
        def value_size(self) -> int: ...
        @property
        def results_too_large(self) -> int: ...

    @final
    class Submit(RunOutcome):
        """SUBMIT(...): the dict of output fields."""

        __match_args__ = ("fields", "results_too_large")
        def __new__(cls, fields: Any, results_too_large: int) -> RunOutcome.Submit: ...
        @property
        def fields(self) -> Any: ...
        @property
        def results_too_large(self) -> int: ...

    @final
    class Final(RunOutcome):
        """FINAL(...) / FINAL_VAR(...): the dict of output fields."""

        __match_args__ = ("fields", "results_too_large")
        def __new__(cls, fields: Any, results_too_large: int) -> RunOutcome.Final: ...
        @property
        def fields(self) -> Any: ...
        @property
        def results_too_large(self) -> int: ...

    @final
    class Syntax(RunOutcome):
        """The code does not parse."""

        __match_args__ = ("error_type", "message", "lineno", "offset", "text")
        def __new__(
            cls, error_type: str, message: str, lineno: int | None, offset: int | None, text: str | None
        ) -> RunOutcome.Syntax: ...
        @property
        def error_type(self) -> str: ...
        @property
        def message(self) -> str: ...
        @property
        def lineno(self) -> int | None: ...
        @property
        def offset(self) -> int | None: ...
        @property
        def text(self) -> str | None: ...

    @final
    class Error(RunOutcome):
        """An exception ended the run: ``output`` was printed before it, ``stop`` is the limit that stopped the
        run, ``rolled_back`` whether the session process died and the session was restored to before it."""

        __match_args__ = ("error_type", "message", "traceback", "output", "stop", "rolled_back", "results_too_large")
        def __new__(
            cls,
            error_type: str,
            message: str,
            traceback: str,
            output: str,
            stop: StopReason | None,
            rolled_back: bool,
            results_too_large: int,
        ) -> RunOutcome.Error: ...
        @property
        def error_type(self) -> str: ...
        @property
        def message(self) -> str: ...
        @property
        def traceback(self) -> str: ...
        @property
        def output(self) -> str: ...
        @property
        def stop(self) -> StopReason | None: ...
        @property
        def rolled_back(self) -> bool: ...
        @property
        def results_too_large(self) -> int: ...

    @final
    class Dead(RunOutcome):
        """The session is gone (shut down, or lost): ``message`` says why."""

        __match_args__ = ("message",)
        def __new__(cls, message: str) -> RunOutcome.Dead: ...
        @property
        def message(self) -> str: ...

@final
class StreamOpened:
    """A tool's result that is a stream the interpreter keeps under ``id``: the sandbox pulls its items."""

    def __new__(cls, id: int) -> StreamOpened: ...
    @property
    def id(self) -> int: ...

@final
class ToolHooks:
    """The interpreter's part of what a session does with tools besides a plain call (src/host/tools.rs)."""

    def __new__(
        cls,
        *,
        pull_stream: Callable[[str, int, bool], tuple[bool, Any]],
        begin: Callable[[], int],
        start: Callable[[int, Callable[..., Any], tuple[Any, ...], dict[str, Any], Context | None], None],
        take: Callable[[], list[tuple[int, bool, Any]]],
        abandon: Callable[[], None],
    ) -> ToolHooks: ...

@final
class Mount:
    """A host folder (or file) shown in the sandbox at ``path``: ``mode`` "ro", "rw" or "overlay". Checked when
    made (ValueError for a bad path or mode, FileNotFoundError for a missing host path); immutable, picklable."""

    def __new__(cls, path: str, host_path: str | os.PathLike[str], mode: str = "ro") -> Mount: ...
    @staticmethod
    def of_package(path: str, host_path: str | os.PathLike[str]) -> Mount:
        """A package set's folder or module: read-only, and its hard-linked files shown (installers such as uv
        link a package's files to their cache); a folder mounted with ``Mount(...)`` shows none."""
    @property
    def path(self) -> str: ...
    @property
    def host_path(self) -> str:
        """The host path, resolved (absolute, no links)."""
    @property
    def mode(self) -> str: ...

@final
class Options:
    """Every option of a session, each checked, with its default (see src/protocol/options.rs and the README's
    table). ``Options(**options)``: TypeError for an unknown name, ValueError for a bad value."""

    def __new__(cls, **options: Any) -> Options: ...
    def as_dict(self) -> dict[str, Any]:
        """The options as keyword arguments of ``Options``."""
    @staticmethod
    def names() -> list[str]:
        """The options' names, sorted."""
    @property
    def session(self) -> SessionOptions:
        """What the session process enforces."""
    @property
    def host(self) -> HostOptions:
        """What only the host reads."""

@final
class SessionOptions:
    """The options a session process enforces (src/protocol/options.rs)."""

    @property
    def timeout(self) -> float | None: ...
    @property
    def abandon_after(self) -> float: ...
    @property
    def max_output_chars(self) -> int: ...
    @property
    def memory_limit(self) -> int | None: ...
    @property
    def preload(self) -> list[str]: ...

@final
class HostOptions:
    """The options only the host reads (src/host/options.rs)."""

    @property
    def tool_timeout(self) -> float | None: ...
    @property
    def max_tool_calls(self) -> int | None: ...
    @property
    def max_tool_result_bytes(self) -> int | None: ...
    @property
    def slow_tool_seconds(self) -> float: ...
    @property
    def max_concurrent_tools(self) -> int: ...
    @property
    def mounts(self) -> list[Mount]: ...
    @property
    def files_max_bytes(self) -> int: ...
    @property
    def files_max_count(self) -> int: ...
    @property
    def strict_values(self) -> bool: ...

@final
class Session:
    """One sandboxed session, served by a confined process forked from the zygote."""

    def __new__(
        cls,
        control_fd: int,
        options: Options,
        package_mounts: list[Mount] = ...,
        zygote_source: Callable[[], int] | None = None,
        stand_ins: list[tuple[str, str | None]] = ...,
        libraries: list[str] = ...,
    ) -> Session:
        """Start a session process with ``options`` from the zygote on ``control_fd``, showing ``package_mounts``
        (its zygote's packages) too. Raises ConnectionError when the zygote is gone, ValueError when a module in
        ``preload`` cannot be imported in the sandbox or two mounts overlap, FileNotFoundError when a mount's host
        path is gone. ``zygote_source`` gives a live zygote's control socket, for a rollback that finds this one
        gone. ``stand_ins`` (tool name, stand-in source) are the tools the first run will declare: the zygote
        makes their stand-ins before it forks, once per zygote. ``libraries``: the session's packages whose values
        cross as themselves (numpy arrays, pandas frames)."""
    def execute(
        self,
        code: str,
        variables: dict[str, Any] | None = None,
        tools: list[ToolSpec] | None = None,
        fields: list[FieldSpec] | None = None,
        context: Context | None = None,
        hooks: ToolHooks | None = None,
    ) -> RunOutcome:
        """Run code. Raises TypeError when a variable cannot enter the sandbox (nothing is bound). A run
        whose process died is rolled back and reported as an Error naming the cause (``rolled_back``). Tools
        that async sandbox code calls run at the same time on the pool of ``hooks``, which also serves tools'
        streams; without it, calls run one after the other and no tool streams."""
    def files_write(self, path: str, data: str | bytes) -> RunOutcome:
        """Make the sandbox file at ``path`` hold ``data``; the outcome's value is None, or an Error."""
    def files_read(self, path: str) -> RunOutcome:
        """The outcome's value is the bytes of the sandbox file at ``path``."""
    def files_list(self) -> RunOutcome:
        """The outcome's value is the sorted paths of the files in the session's own tree."""
    def files_written(self) -> RunOutcome:
        """The outcome's value is the sorted paths of the files the last run created or changed."""
    def fork(self) -> Session:
        """A new session with an identical, independent copy of this one's state and tools."""
    def interrupt(self) -> None:
        """Stop the code running now, from any thread (KeyboardInterrupt in the sandbox)."""
    def shutdown(self) -> None:
        """Kill the session's processes at once; from any thread, also during a run. Idempotent."""
    def _inject_fault(self, place: str) -> None:
        """Tests only: the next execute fails: the session process panics ("vm"), aborts ("abort") or
        overflows its native stack ("stack_overflow"), or this handle panics ("handle", "tool")."""
    def would_wait_on_itself(self) -> bool:
        """True when called from a tool this session is waiting for (directly or through other sessions)."""
    @property
    def alive(self) -> bool: ...
    @property
    def death_reason(self) -> str: ...
    @property
    def pid(self) -> int:
        """The pid of the process serving the session now (a rollback or fork changes it)."""

def check_mount_paths(paths: list[str]) -> None:
    """ValueError when two of these sandbox paths are one folder or one is inside another."""

def stdlib_modules() -> list[tuple[str, str, str | None, str]]:
    """The sandbox's table of the standard library: (module, "available" | "confined" | "refused", "native" |
    "python" | "stand-in" | None, what a confined module works on or why a refused one is refused)."""

def serve_zygote(control_fd: int, tzdata_dir: str | None = None, packages: str | None = None) -> None:
    """The zygote's entry point (run by ``_zygote.py``'s loader in a separate process)."""
