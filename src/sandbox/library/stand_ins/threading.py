"""threading for the sandbox, whose VM runs one thread: threads are run by a scheduler of its own, one at a time.
A started thread runs, from its start to its end, at the first point where another thread waits (``join()``, a
queue's ``get()`` or ``put()``, ``Event.wait()``, ``Condition.wait()``, a contended lock or semaphore, a barrier,
``time.sleep()`` in the main thread) or, at the latest, when the cell ends; a thread that waits in turn runs the
threads still to run, beneath it. So fan-out with ``join``, a worker pool with a lock, producer and consumer over a queue, events,
barriers and timers give CPython's results wherever those do not depend on how threads interleave; a wait that
only a thread waiting beneath it could end raises RuntimeError (CPython would hang). Threads run inside the cell,
under its time and memory limits; an exception ends its thread and is printed by ``excepthook``, as in CPython."""

import sys as _sys
import time as _time

__all__ = [
    "get_ident", "get_native_id", "active_count", "Condition", "current_thread", "enumerate", "main_thread",
    "TIMEOUT_MAX", "Event", "Lock", "RLock", "Semaphore", "BoundedSemaphore", "Thread", "Barrier",
    "BrokenBarrierError", "Timer", "ThreadError", "ExceptHookArgs", "setprofile", "settrace", "local",
    "stack_size", "excepthook", "gettrace", "getprofile", "setprofile_all_threads", "settrace_all_threads",
]

TIMEOUT_MAX = 9223372036.0
ThreadError = RuntimeError

# Started threads not run yet, in the order they started; the threads on the stack, the running one last.
_pending = []
_stack = []
_counter = [0]
_idents = [1]


def _next_ident():
    _idents[0] += 1
    return _idents[0]


def _deadlock(what):
    return RuntimeError(
        f"{what} would wait forever: every thread that could end the wait is waiting too (the sandbox runs "
        "threads one at a time, each from its start to its end, at the first point where another waits)"
    )


def _run_one():
    """Run the next started thread to its end; False when none is left."""
    if not _pending:
        return False
    _run(_pending.pop(0))
    return True


def _until(ready, timeout, what):
    """Wait until ``ready()``: run the threads still to run, then, if it is still not ready, sleep out
    ``timeout`` (None: forever, which is a deadlock here)."""
    if ready():
        return True
    started = _time.monotonic()
    while _run_one():
        if ready():
            return True
    if timeout is None:
        raise _deadlock(what)
    left = timeout - (_time.monotonic() - started)
    if left > 0:
        _original_sleep(left)
    return ready()


def _lock_timeout(timeout):
    """A lock's ``timeout`` as ``_until`` takes it: -1 (or any negative) is no timeout."""
    return None if timeout is not None and timeout < 0 else timeout


def _run(thread):
    _stack.append(thread)
    try:
        thread._bootstrap()
    finally:
        _stack.pop()


def _run_left():
    """At a cell's end: run every thread started and not run yet (as CPython's threads would have run by then,
    or right after), daemon threads too."""
    while _run_one():
        pass


_original_sleep = _time.sleep


def _sleep(seconds):
    """``time.sleep`` while threads are started: the main thread lets the others run first. A thread that sleeps
    while holding a lock or a semaphore's count (a worker pacing itself) just sleeps: threads run beneath it would
    wait for what it holds."""
    started = _time.monotonic()
    while current_thread() is _main_thread and _run_one():
        pass
    left = seconds - (_time.monotonic() - started)
    _original_sleep(left if left > 0 else 0)


def get_ident():
    return current_thread()._ident


def get_native_id():
    return get_ident()


class Lock:
    def __init__(self):
        self._locked = False

    def acquire(self, blocking=True, timeout=-1):
        if not blocking:
            if self._locked:
                return False
            self._locked = True
            return True
        if not _until(lambda: not self._locked, _lock_timeout(timeout), "acquiring a held lock"):
            return False
        self._locked = True
        return True

    def __enter__(self):
        return self.acquire()

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
        self._owner = None
        self._count = 0

    def acquire(self, blocking=True, timeout=-1):
        me = get_ident()
        if self._owner == me:
            self._count += 1
            return True
        if not blocking:
            if self._owner is not None:
                return False
        elif not _until(lambda: self._owner is None, _lock_timeout(timeout), "acquiring a held lock"):
            return False
        self._owner, self._count = me, 1
        return True

    def __enter__(self):
        return self.acquire()

    def release(self):
        if self._owner != get_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1
        if not self._count:
            self._owner = None

    def __exit__(self, *exc):
        self.release()

    def locked(self):
        return self._owner is not None

    def _is_owned(self):
        return self._owner == get_ident()

    def _release_save(self):
        state = (self._owner, self._count)
        self._owner, self._count = None, 0
        return state

    def _acquire_restore(self, state):
        _until(lambda: self._owner is None, None, "acquiring a held lock")
        self._owner, self._count = state

    def _at_fork_reinit(self):
        self._owner, self._count = None, 0

    def __repr__(self):
        owner = self._owner
        state = "locked" if owner is not None else "unlocked"
        return f"<{state} {type(self).__name__} object owner={owner} count={self._count} at {id(self):#x}>"


class Condition:
    def __init__(self, lock=None):
        self._lock = RLock() if lock is None else lock
        self.acquire = self._lock.acquire
        self.release = self._lock.release
        self._waiters = []

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def _is_owned(self):
        owned = getattr(self._lock, "_is_owned", None)
        return owned() if owned is not None else self._lock.locked()

    def wait(self, timeout=None):
        if not self._is_owned():
            raise RuntimeError("cannot wait on un-acquired lock")
        waiter = [False]
        self._waiters.append(waiter)
        saved = self._lock._release_save() if hasattr(self._lock, "_release_save") else self._lock.release()
        try:
            notified = _until(lambda: waiter[0], timeout, "Condition.wait()")
        finally:
            if not waiter[0] and waiter in self._waiters:
                self._waiters.remove(waiter)
            if hasattr(self._lock, "_acquire_restore"):
                self._lock._acquire_restore(saved)
            else:
                self._lock.acquire()
        return notified

    def wait_for(self, predicate, timeout=None):
        end = None if timeout is None else _time.monotonic() + timeout
        result = predicate()
        while not result:
            left = None if end is None else end - _time.monotonic()
            if left is not None and left <= 0:
                break
            self.wait(left)
            result = predicate()
        return result

    def notify(self, n=1):
        if not self._is_owned():
            raise RuntimeError("cannot notify on un-acquired lock")
        for waiter in self._waiters[:n]:
            waiter[0] = True
        del self._waiters[:n]

    def notify_all(self):
        self.notify(len(self._waiters))

    notifyAll = notify_all

    def __repr__(self):
        return f"<Condition({self._lock}, {len(self._waiters)})>"


class Semaphore:
    def __init__(self, value=1):
        if value < 0:
            raise ValueError("semaphore initial value must be >= 0")
        self._value = value

    def acquire(self, blocking=True, timeout=None):
        if not blocking and timeout is not None:
            raise ValueError("can't specify timeout for non-blocking acquire")
        if not blocking:
            if self._value <= 0:
                return False
        elif not _until(lambda: self._value > 0, timeout, "acquiring a semaphore at zero"):
            return False
        self._value -= 1
        return True

    def __enter__(self):
        return self.acquire()

    def release(self, n=1):
        if n < 1:
            raise ValueError("n must be one or more")
        self._value += n

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__qualname__} at {id(self):#x}: value={self._value}>"


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

    isSet = is_set

    def set(self):
        self._flag = True

    def clear(self):
        self._flag = False

    def wait(self, timeout=None):
        return _until(lambda: self._flag, timeout, "Event.wait()")

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__qualname__} at {id(self):#x}: {'set' if self._flag else 'unset'}>"


class BrokenBarrierError(RuntimeError):
    pass


class Barrier:
    def __init__(self, parties, action=None, timeout=None):
        if parties < 1:
            raise ValueError("parties must be >= 1")
        self._parties, self._action, self._timeout = parties, action, timeout
        self._count = 0
        self._generation = 0
        self._broken = False

    def wait(self, timeout=None):
        if self._broken:
            raise BrokenBarrierError
        index = self._count
        self._count += 1
        generation = self._generation
        if self._count == self._parties:
            self._count = 0
            self._generation += 1
            if self._action is not None:
                try:
                    self._action()
                except BaseException:
                    self._broken = True
                    raise
            return index
        if timeout is None:
            timeout = self._timeout
        passed = _until(lambda: self._generation != generation or self._broken, timeout, "Barrier.wait()")
        if not passed or self._broken:
            self._broken = True
            raise BrokenBarrierError
        return index

    def reset(self):
        self._count = 0
        self._broken = False

    def abort(self):
        self._broken = True

    @property
    def parties(self):
        return self._parties

    @property
    def n_waiting(self):
        return self._count

    @property
    def broken(self):
        return self._broken


class local:
    """Data of each thread: an attribute set in one thread is not seen in another (a subclass's ``__init__`` runs
    again, with the first arguments, in each thread that uses the object)."""

    __slots__ = ("_local__dicts", "_local__args", "__weakref__")

    def __new__(cls, *args, **kwargs):
        if (args or kwargs) and cls.__init__ is object.__init__:
            raise TypeError("Initialization arguments are not supported")
        self = object.__new__(cls)
        object.__setattr__(self, "_local__dicts", {get_ident(): {}})
        object.__setattr__(self, "_local__args", (args, kwargs))
        return self

    def _local__dict(self):
        dicts = object.__getattribute__(self, "_local__dicts")
        ident = get_ident()
        found = dicts.get(ident)
        if found is None:
            found = dicts[ident] = {}
            init = type(self).__init__
            if init is not object.__init__:
                args, kwargs = object.__getattribute__(self, "_local__args")
                init(self, *args, **kwargs)
        return found

    def __getattribute__(self, name):
        if name == "__dict__":
            return local._local__dict(self)
        data = local._local__dict(self)
        if name in data:
            return data[name]
        return object.__getattribute__(self, name)

    def __setattr__(self, name, value):
        if name == "__dict__":
            raise AttributeError(f"{type(self).__name__!r} object attribute '__dict__' is read-only")
        local._local__dict(self)[name] = value

    def __delattr__(self, name):
        data = local._local__dict(self)
        if name not in data:
            raise AttributeError(name)
        del data[name]


class Thread:
    def __init__(self, group=None, target=None, name=None, args=(), kwargs=None, *, daemon=None):
        if group is not None:
            raise AssertionError("group argument must be None for now")
        if name is None:
            _counter[0] += 1
            name = f"Thread-{_counter[0]}"
            target_name = getattr(target, "__name__", None)
            if target is not None and target_name is not None:
                name += f" ({target_name})"
        self._target, self._args, self._kwargs = target, args, kwargs if kwargs is not None else {}
        self._name = str(name)
        self._daemon = current_thread().daemon if daemon is None and _stack else bool(daemon)
        self._ident = None
        self._state = "initial"
        self._started = Event()
        self._finished = False
        self._initialized = True

    def start(self):
        if not getattr(self, "_initialized", False):
            raise RuntimeError("thread.__init__() not called")
        if self._state != "initial":
            raise RuntimeError("threads can only be started once")
        self._state = "started"
        self._ident = _next_ident()
        self._started.set()
        if _time.sleep is not _sleep:
            _time.sleep = _sleep
        _pending.append(self)

    def run(self):
        try:
            if self._target is not None:
                self._target(*self._args, **self._kwargs)
        finally:
            del self._target, self._args, self._kwargs

    def _bootstrap(self):
        self._state = "running"
        try:
            self.run()
        except SystemExit:
            pass
        except Exception as error:
            hook = excepthook
            hook(ExceptHookArgs(type(error), error, error.__traceback__, self))
        finally:
            self._state = "stopped"
            self._finished = True

    def join(self, timeout=None):
        if not getattr(self, "_initialized", False):
            raise RuntimeError("Thread.__init__() not called")
        if self._state == "initial":
            raise RuntimeError("cannot join thread before it is started")
        if self is current_thread():
            raise RuntimeError("cannot join current thread")
        if self in _pending:
            _pending.remove(self)
            _run(self)
            return
        _until(lambda: self._finished, timeout, f"joining {self._name}")

    def is_alive(self):
        return self._state in ("started", "running")

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = str(value)

    @property
    def ident(self):
        return self._ident

    @property
    def native_id(self):
        return self._ident

    @property
    def daemon(self):
        return self._daemon

    @daemon.setter
    def daemon(self, value):
        if self._state != "initial":
            raise RuntimeError("cannot set daemon status of active thread")
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
        status = {"initial": "initial", "stopped": "stopped"}.get(self._state, "started")
        if self._daemon:
            status += " daemon"
        if self._ident is not None and self._state != "initial":
            status += f" {self._ident}"
        return f"<{type(self).__name__}({self._name}, {status})>"


class _MainThread(Thread):
    def __init__(self):
        super().__init__(name="MainThread", daemon=False)
        self._state = "running"
        self._ident = 1
        self._started.set()


class Timer(Thread):
    """Calls a function after a number of seconds (here: when the thread runs, after its wait)."""

    def __init__(self, interval, function, args=None, kwargs=None):
        super().__init__()
        self.interval = interval
        self.function = function
        self.args = args if args is not None else []
        self.kwargs = kwargs if kwargs is not None else {}
        self.finished = Event()

    def cancel(self):
        self.finished.set()

    def run(self):
        self.finished.wait(self.interval)
        if not self.finished.is_set():
            self.function(*self.args, **self.kwargs)
        self.finished.set()


_main_thread = _MainThread()
_stack.append(_main_thread)


def main_thread():
    return _main_thread


def current_thread():
    return _stack[-1] if _stack else _main_thread


currentThread = current_thread


def enumerate():
    running = [thread for thread in _stack[1:] if thread.is_alive()]
    waiting = [thread for thread in _pending if thread not in running]
    return [_main_thread, *running, *waiting]


def active_count():
    return len(enumerate())


activeCount = active_count


def stack_size(size=0):
    if size and size < 32768:
        raise ValueError("size not valid: 32768 bytes minimum")
    return 0


_trace = [None]
_profile = [None]


def settrace(func):
    _trace[0] = func


def setprofile(func):
    _profile[0] = func


def settrace_all_threads(func):
    settrace(func)


def setprofile_all_threads(func):
    setprofile(func)


def gettrace():
    return _trace[0]


def getprofile():
    return _profile[0]


def _register_atexit(func, *args, **kwargs):
    pass


def _shutdown():
    _run_left()


class ExceptHookArgs:
    def __init__(self, exc_type, exc_value, exc_traceback, thread):
        self.exc_type, self.exc_value, self.exc_traceback, self.thread = exc_type, exc_value, exc_traceback, thread


def excepthook(args):
    """An exception that ended a thread, printed to stderr as CPython prints it."""
    if args.exc_type is SystemExit:
        return
    import traceback

    name = args.thread.name if args.thread is not None else get_ident()
    stderr = _sys.stderr
    if stderr is None:
        return
    print(f"Exception in thread {name}:", file=stderr, flush=True)
    traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback, file=stderr)
    stderr.flush()


__excepthook__ = excepthook
