"""``InterpreterPool``: interpreters whose sandboxes are built ahead of time, handed out one per user.

A pooled interpreter is never reused. When one is returned, its session is shut down and a fresh one is
built in the background to take its place: a returned interpreter cannot leave anything behind (variables,
module attributes, builtins, caches, random state, tools), because nothing of it is ever seen again. What
the pool saves is the sandbox's start-up, which happens before anyone asks for it.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from . import _native
from ._errors import CodeInterpreterError
from ._interpreter import RustInterpreter, instructions_for, new_session
from ._options import check_options

# Imported while each pooled sandbox is built (ahead of time, in the background), so the first `import` of
# these in a checked-out interpreter is a lookup. None by default: every session comes with json, re, math
# and collections imported already (from the zygote). Set preload=(...) for more.
DEFAULT_POOL_PRELOAD: tuple[str, ...] = ()


# How long close() waits for sandboxes still being built (one takes tens of milliseconds).
BUILD_WAIT_SECONDS = 10.0

# Pools not yet collected: closed at interpreter exit, before the sessions themselves are shut down (this
# handler is registered after _interpreter's, so it runs first), so no sandbox is still being built then.
_LIVE_POOLS: weakref.WeakSet[InterpreterPool] = weakref.WeakSet()


@atexit.register
def _close_live_pools() -> None:
    for pool in list(_LIVE_POOLS):
        pool.close()


class _UsePoolDefault:
    """The checkout timeout was not given: use the pool's."""


_POOL_DEFAULT = _UsePoolDefault()


class PoolExhaustedError(CodeInterpreterError):
    """No pooled interpreter became free within the checkout timeout."""


class InterpreterPool:
    """Up to ``size`` ready-to-run ``RustInterpreter`` sessions, shared by any number of threads.

    ``with pool.interpreter() as interp:`` checks one out and returns it; ``pool.factory`` is a zero-argument
    callable for ``dspy.RLM(..., interpreter_factory=pool.factory)`` whose interpreters go back to the pool
    on ``shutdown()``. At most ``size`` interpreters are out at once; a checkout when all are out waits,
    up to ``checkout_timeout`` seconds (None: forever), then raises ``PoolExhaustedError``.
    ``interpreter_options`` are ``RustInterpreter``'s (``timeout``, ``memory_limit``, ...); ``preload``
    defaults to ``DEFAULT_POOL_PRELOAD`` here: the sandboxes are built ahead of time, so importing those
    modules then makes the code's own first import of them free.
    """

    def __init__(self, size: int = 4, *, checkout_timeout: float | None = None, **interpreter_options: Any) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive int, got {size!r}")
        if checkout_timeout is not None and (
            isinstance(checkout_timeout, bool)
            or not isinstance(checkout_timeout, (int, float))
            or not 0 <= checkout_timeout <= threading.TIMEOUT_MAX
        ):
            raise ValueError(f"checkout_timeout must be None or a non-negative number of seconds, got {checkout_timeout!r}")
        self._configuration = check_options({"preload": DEFAULT_POOL_PRELOAD, **interpreter_options})
        self._size = size
        self._checkout_timeout = checkout_timeout
        self._slots = threading.BoundedSemaphore(size)
        self._ready: deque[_native.Session] = deque()
        self._ready_changed = threading.Condition()
        self._closed = False
        self._builders = 0
        _LIVE_POOLS.add(self)
        for _ in range(size):
            self._build_in_background()

    # -- public surface ---------------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self._size

    def ready_count(self) -> int:
        """How many sandboxes are built and waiting for a checkout."""
        with self._ready_changed:
            return len(self._ready)

    def checkout(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        output_fields: Any = None,
        timeout: float | None | _UsePoolDefault = _POOL_DEFAULT,
    ) -> RustInterpreter:
        """A fresh interpreter from the pool; give it back with its ``shutdown()``."""
        wait = self._checkout_timeout if isinstance(timeout, _UsePoolDefault) else timeout
        if self._closed:
            raise CodeInterpreterError("this InterpreterPool is closed")
        if not self._slots.acquire(timeout=wait):
            raise PoolExhaustedError(
                f"all {self._size} pooled interpreters are in use and none was returned within {wait} s; "
                "return interpreters with shutdown() (or `with pool.interpreter()`), or make the pool bigger"
            )
        try:
            session = self._take_ready()
        except BaseException:
            self._slots.release()
            raise
        released = threading.Event()

        def give_back() -> None:
            if not released.is_set():
                released.set()
                self._slots.release()
                self._build_in_background()

        return RustInterpreter(tools, output_fields, _session=session, _on_shutdown=give_back, _configuration=self._configuration)

    @contextlib.contextmanager
    def interpreter(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        timeout: float | None | _UsePoolDefault = _POOL_DEFAULT,
    ) -> Iterator[RustInterpreter]:
        """``with pool.interpreter() as interp: ...``: check out, and return even if the body raises."""
        interp = self.checkout(tools, timeout=timeout)
        try:
            yield interp
        finally:
            interp.shutdown()

    @property
    def factory(self) -> Callable[[], RustInterpreter]:
        """A zero-argument callable for ``interpreter_factory=``: each call checks one interpreter out."""

        def pooled_interpreter() -> RustInterpreter:
            return self.checkout()

        # dspy.RLM reads this from the factory for the model's prompt, as it would from RustInterpreter.
        pooled_interpreter.execution_instructions = instructions_for(self._configuration)  # type: ignore[attr-defined]
        return pooled_interpreter

    def close(self) -> None:
        """Stop building and shut the ready sessions down, after waiting for those being built (at most
        ``BUILD_WAIT_SECONDS``). Interpreters checked out keep working until their own ``shutdown()``.
        Idempotent."""
        with self._ready_changed:
            self._closed = True
            ready = list(self._ready)
            self._ready.clear()
            self._ready_changed.notify_all()
        for session in ready:
            session.shutdown()
        deadline = time.monotonic() + BUILD_WAIT_SECONDS
        with self._ready_changed:
            while self._builders and time.monotonic() < deadline:
                self._ready_changed.wait(deadline - time.monotonic())

    def __enter__(self) -> InterpreterPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self._ready)} ready"
        return f"<InterpreterPool size={self._size}, {state}>"

    # -- internals --------------------------------------------------------------------------------------------

    def _build_in_background(self) -> None:
        with self._ready_changed:
            if self._closed:
                return
            self._builders += 1
        threading.Thread(target=self._build_one, name="dspy-rust-interpreter-pool", daemon=True).start()

    def _build_one(self) -> None:
        try:
            session: _native.Session | None = new_session(self._configuration)
        except Exception:  # the checkout builds one itself and reports the error there
            session = None
        with self._ready_changed:
            if session is not None and not self._closed:
                self._ready.append(session)
                session = None
        # Built for a pool closed meanwhile: shut down before this build counts as finished (see close()).
        if session is not None:
            session.shutdown()
        with self._ready_changed:
            self._builders -= 1
            self._ready_changed.notify_all()

    def _take_ready(self) -> _native.Session:
        """A built session: one that is ready, or one being built, or else one built now."""
        with self._ready_changed:
            while not self._ready and self._builders > 0 and not self._closed:
                self._ready_changed.wait()
            if self._ready:
                return self._ready.popleft()
        return new_session(self._configuration)
