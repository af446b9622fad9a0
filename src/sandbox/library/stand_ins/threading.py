"""threading for the sandbox: the session runs in one thread and cannot start another. Locks, events and
conditions work as they do in one thread; anything that would wait for another thread (which does not exist)
raises RuntimeError instead of hanging, and Thread.start() says the sandbox has no threads."""

import time as _time

__all__ = [
    "get_ident", "get_native_id", "active_count", "Condition", "current_thread", "enumerate", "main_thread",
    "TIMEOUT_MAX", "Event", "Lock", "RLock", "Semaphore", "BoundedSemaphore", "Thread", "Barrier",
    "BrokenBarrierError", "Timer", "ThreadError", "ExceptHookArgs", "setprofile", "settrace", "local",
    "stack_size", "excepthook", "gettrace", "getprofile",
]

TIMEOUT_MAX = 9223372036.0
ThreadError = RuntimeError
_IDENT = 1


def _would_wait_forever(what):
    return RuntimeError(f"{what} would wait forever: the sandbox has only one thread, so nothing else can release it")


def _wait(blocking, timeout, what):
    """What a wait that cannot succeed in one thread does: fail at once, sleep out its timeout, or raise."""
    if not blocking:
        return False
    if timeout is None or timeout < 0:
        raise _would_wait_forever(what)
    _time.sleep(timeout)
    return False


def get_ident():
    return _IDENT


def get_native_id():
    return _IDENT


class Lock:
    def __init__(self):
        self._locked = False

    def acquire(self, blocking=True, timeout=-1):
        if not self._locked:
            self._locked = True
            return True
        return _wait(blocking, timeout, "acquiring a lock this thread holds")

    __enter__ = acquire

    def release(self):
        if not self._locked:
            raise RuntimeError("release unlocked lock")
        self._locked = False

    def __exit__(self, *exc):
        self.release()

    def locked(self):
        return self._locked

    def _at_fork_reinit(self):
        self._locked = False

    def __repr__(self):
        return f"<{'locked' if self._locked else 'unlocked'} {type(self).__name__} object at {id(self):#x}>"


class RLock:
    def __init__(self):
        self._count = 0

    def acquire(self, blocking=True, timeout=-1):
        self._count += 1
        return True

    __enter__ = acquire

    def release(self):
        if not self._count:
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1

    def __exit__(self, *exc):
        self.release()

    def locked(self):
        return self._count > 0

    def _is_owned(self):
        return self._count > 0

    def _at_fork_reinit(self):
        self._count = 0


class Condition:
    def __init__(self, lock=None):
        self._lock = RLock() if lock is None else lock
        self.acquire = self._lock.acquire
        self.release = self._lock.release

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def _check_owned(self):
        if not self._lock.locked():
            raise RuntimeError("cannot wait on un-acquired lock")

    def wait(self, timeout=None):
        self._check_owned()
        return _wait(True, timeout, "Condition.wait()")

    def wait_for(self, predicate, timeout=None):
        result = predicate()
        if not result:
            self.wait(timeout)
            result = predicate()
        return result

    def notify(self, n=1):
        if not self._lock.locked():
            raise RuntimeError("cannot notify on un-acquired lock")

    def notify_all(self):
        self.notify()


class Semaphore:
    def __init__(self, value=1):
        if value < 0:
            raise ValueError("semaphore initial value must be >= 0")
        self._value = value

    def acquire(self, blocking=True, timeout=None):
        if self._value > 0:
            self._value -= 1
            return True
        return _wait(blocking, timeout, "acquiring a semaphore at zero")

    __enter__ = acquire

    def release(self, n=1):
        if n < 1:
            raise ValueError("n must be one or more")
        self._value += n

    def __exit__(self, *exc):
        self.release()


class BoundedSemaphore(Semaphore):
    def __init__(self, value=1):
        super().__init__(value)
        self._initial_value = value

    def release(self, n=1):
        if n < 1:
            raise ValueError("n must be one or more")
        if self._value + n > self._initial_value:
            raise ValueError("Semaphore released too many times")
        self._value += n


class Event:
    def __init__(self):
        self._flag = False

    def is_set(self):
        return self._flag

    def set(self):
        self._flag = True

    def clear(self):
        self._flag = False

    def wait(self, timeout=None):
        return True if self._flag else _wait(True, timeout, "Event.wait()")


class BrokenBarrierError(RuntimeError):
    pass


class Barrier:
    def __init__(self, parties, action=None, timeout=None):
        if parties < 1:
            raise ValueError("parties must be >= 1")
        self.parties, self._action, self._timeout = parties, action, timeout
        self.broken = False
        self.n_waiting = 0

    def wait(self, timeout=None):
        if self.parties == 1:
            if self._action:
                self._action()
            return 0
        raise _would_wait_forever("Barrier.wait()")

    def reset(self):
        self.broken = False

    def abort(self):
        self.broken = True


class local:
    """Thread-local data: with one thread, an object's own attributes."""


class Thread:
    def __init__(self, group=None, target=None, name=None, args=(), kwargs=None, *, daemon=None):
        self._target, self._args, self._kwargs = target, args, kwargs or {}
        self._name = str(name) if name is not None else f"Thread-{id(self):x}"
        self._daemon = bool(daemon)
        self._started = False

    def start(self):
        raise RuntimeError("the sandbox has no threads: Thread.start() is not available; call the function directly")

    def run(self):
        if self._target is not None:
            self._target(*self._args, **self._kwargs)

    def join(self, timeout=None):
        if not self._started:
            raise RuntimeError("cannot join thread before it is started")

    def is_alive(self):
        return self._started

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = str(value)

    @property
    def ident(self):
        return _IDENT if self._started else None

    native_id = ident

    @property
    def daemon(self):
        return self._daemon

    @daemon.setter
    def daemon(self, value):
        self._daemon = bool(value)

    def getName(self):
        return self._name

    def setName(self, name):
        self.name = name

    def isDaemon(self):
        return self._daemon

    def setDaemon(self, daemonic):
        self.daemon = daemonic

    def __repr__(self):
        status = "started" if self._started else "initial"
        return f"<{type(self).__name__}({self._name}, {status})>"


class _MainThread(Thread):
    def __init__(self):
        super().__init__(name="MainThread")
        self._started = True


class Timer(Thread):
    def __init__(self, interval, function, args=None, kwargs=None):
        super().__init__(target=function, args=args or (), kwargs=kwargs)
        self.interval = interval

    def cancel(self):
        pass


_main_thread = _MainThread()


def main_thread():
    return _main_thread


def current_thread():
    return _main_thread


currentThread = current_thread


def active_count():
    return 1


activeCount = active_count


def enumerate():
    return [_main_thread]


def stack_size(size=0):
    return 0


def settrace(func):
    pass


def setprofile(func):
    pass


def gettrace():
    return None


def getprofile():
    return None


def _register_atexit(func, *args, **kwargs):
    pass


class ExceptHookArgs:
    def __init__(self, exc_type, exc_value, exc_traceback, thread):
        self.exc_type, self.exc_value, self.exc_traceback, self.thread = exc_type, exc_value, exc_traceback, thread


def excepthook(args):
    import traceback

    traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback)


__excepthook__ = excepthook
