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
        self._lock = threading.Lock()
        self._holder: int | None = None

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock (waiting at most ``timeout`` seconds, if given); CodeInterpreterError if waiting
        would close a cycle of threads waiting for each other."""
        me = threading.get_ident()
        if not self._lock.acquire(blocking=False):
            with _registry:
                lock: SessionLock | None = self
                seen: set[int] = set()
                while lock is not None and lock._holder is not None and lock._holder not in seen:
                    if lock._holder == me:
                        raise CodeInterpreterError(
                            f"{self._name} is busy with a run that is waiting (through tools calling other "
                            "interpreters) for this thread: waiting for it would deadlock; call it outside of "
                            "those tools, or use a separate interpreter"
                        )
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
        with _registry:
            self._holder = None
        self._lock.release()

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
