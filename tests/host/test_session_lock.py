"""The interpreter's run lock (`_locking.SessionLock`) is never left held by an exception that lands while it
is being taken: Ctrl-C's KeyboardInterrupt can arrive at any bytecode, and a lock left held blocks every later
run of the interpreter for ever."""

from __future__ import annotations

import threading

import pytest

from dspy_rust_interpreter import _locking


class InterruptOnce:
    """Stands in for the registry lock: raises KeyboardInterrupt the first time it is entered, as a Ctrl-C
    that lands just after the run lock was taken would."""

    def __init__(self) -> None:
        self._inner = threading.Lock()
        self.fired = False

    def __enter__(self) -> None:
        if not self.fired:
            self.fired = True
            raise KeyboardInterrupt
        self._inner.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self._inner.release()


def test_an_interrupt_right_after_the_lock_is_taken_lets_it_go(monkeypatch):
    interrupt = InterruptOnce()
    monkeypatch.setattr(_locking, "_registry", interrupt)
    lock = _locking.SessionLock("an interpreter")
    with pytest.raises(KeyboardInterrupt):
        with lock:
            pass
    assert interrupt.fired
    # Another thread can take it at once: it was let go, not leaked.
    taken = []
    other = threading.Thread(target=lambda: taken.append(lock.acquire(timeout=2)))
    other.start()
    other.join()
    assert taken == [True]


def test_the_same_thread_taking_it_again_is_refused_not_granted():
    lock = _locking.SessionLock("an interpreter")
    with lock:
        with pytest.raises(_locking.CodeInterpreterError, match="deadlock"):
            lock.acquire()
    assert lock.acquire(timeout=1)
    lock.release()
