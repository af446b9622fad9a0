"""concurrent.futures.thread for the sandbox, which runs on one thread: a ThreadPoolExecutor whose work runs
when it is submitted, on the calling thread, in order of submission. Each future holds the result or the
exception the same call gives on a thread of CPython's pool, so ``map``, ``submit`` with ``result()`` and
``as_completed`` give what they give there; only the time each call starts differs (a task that waits for
another to release it would wait for ever, which no single-threaded pool can run)."""

import itertools

from concurrent.futures import _base

__all__ = ["BrokenThreadPool", "ThreadPoolExecutor"]


class BrokenThreadPool(_base.BrokenExecutor):
    """Raised when a worker thread in a ThreadPoolExecutor failed initializing."""


class ThreadPoolExecutor(_base.Executor):
    _counter = itertools.count().__next__

    def __init__(self, max_workers=None, thread_name_prefix="", initializer=None, initargs=()):
        if max_workers is None:
            max_workers = 5  # CPython's min(32, cpus + 4); the sandbox has one thread, and no cpu count
        if max_workers <= 0:
            raise ValueError("max_workers must be greater than 0")
        if initializer is not None and not callable(initializer):
            raise TypeError("initializer must be a callable")
        self._max_workers = max_workers
        self._thread_name_prefix = thread_name_prefix or f"ThreadPoolExecutor-{self._counter()}"
        self._initializer = initializer
        self._initargs = initargs
        self._initialized = False
        self._broken = False
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs):
        if self._broken:
            raise BrokenThreadPool(self._broken)
        if self._shutdown:
            raise RuntimeError("cannot schedule new futures after shutdown")
        if not self._initialized:
            self._initialized = True
            if self._initializer is not None:
                try:
                    self._initializer(*self._initargs)
                except Exception:
                    self._broken = "A thread initializer failed, the thread pool is not usable anymore"
                    raise BrokenThreadPool(self._broken) from None
        future = _base.Future()
        future.set_running_or_notify_cancel()
        try:
            result = fn(*args, **kwargs)
        except Exception as error:
            future.set_exception(error)
        else:
            future.set_result(result)
        return future

    submit.__doc__ = _base.Executor.submit.__doc__

    def shutdown(self, wait=True, *, cancel_futures=False):
        self._shutdown = True

    shutdown.__doc__ = _base.Executor.shutdown.__doc__
