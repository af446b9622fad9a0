"""The lock each interpreter holds for a run, which knows which thread holds it. Tools run on the caller's
thread, and a tool may call another interpreter's ``execute()``: with several threads, interpreters whose
tools call each other could wait for each other for ever. A thread about to wait for a lock first follows
the chain of holders and the locks they wait for; if it leads back to itself, it gets an error instead."""

from __future__ import annotations

import threading

from ._errors import CodeInterpreterError

# Guards every lock's holder and the table of who waits for what.
_registry = threading.Lock()
# Thread ident -> the lock that thread is waiting for.
_waiting_for: dict[int, SessionLock] = {}


class SessionLock:
    def __init__(self, name: str) -> None:
        self._name = name
        # An RLock only for `_is_owned` (taken once at a time, see `acquire`): whether this thread holds it is
        # known in C, so a Ctrl-C that lands between taking it and noting the holder can let it go again.
        self._lock = threading.RLock()
        self._holder: int | None = None

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock (waiting at most ``timeout`` seconds, if given); CodeInterpreterError if waiting
        would close a cycle of threads waiting for each other."""
        if self._lock._is_owned():  # type: ignore[attr-defined]
            raise self._cycle()
        try:
            return self._acquire(threading.get_ident(), timeout)
        except BaseException:
            # KeyboardInterrupt (Ctrl-C's) can arrive right after the lock was taken, before anything that
            # would let it go: held, it would block every later run for ever (a hang under load).
            if self._lock._is_owned():  # type: ignore[attr-defined]
                self._holder = None
                self._lock.release()
            raise

    def _cycle(self) -> CodeInterpreterError:
        return CodeInterpreterError(
            f"{self._name} is busy with a run that is waiting (through tools calling other "
            "interpreters) for this thread: waiting for it would deadlock; call it outside of "
            "those tools, or use a separate interpreter"
        )

    def _acquire(self, me: int, timeout: float | None) -> bool:
        if not self._lock.acquire(blocking=False):
            with _registry:
                lock: SessionLock | None = self
                seen: set[int] = set()
                while lock is not None and lock._holder is not None and lock._holder not in seen:
                    if lock._holder == me:
                        raise self._cycle()
                    seen.add(lock._holder)
                    lock = _waiting_for.get(lock._holder)
                _waiting_for[me] = self
            try:
                acquired = self._lock.acquire(timeout=-1 if timeout is None else timeout)
            finally:
                with _registry:
                    _waiting_for.pop(me, None)
            if not acquired:
                return False
        with _registry:
            self._holder = me
        return True

    def release(self) -> None:
        # Not under the registry: a Ctrl-C while waiting for it would leave the lock held.
        self._holder = None
        self._lock.release()

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
