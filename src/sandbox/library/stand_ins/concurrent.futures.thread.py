"""concurrent.futures.thread for the sandbox, whose VM runs one thread: a ThreadPoolExecutor whose work runs when
it is submitted, on the calling thread, in order of submission, except a host tool submitted as the task itself
(``pool.map(llm_query, prompts)``, ``pool.submit(search, q)``): those calls are started together, up to
``max_workers`` at a time, and run on the host at once, as on CPython's pool, the first time anything waits for a
future (its ``result()``, ``as_completed``, ``wait``, the pool's ``shutdown`` or ``with`` block, the cell's end:
the sandbox's ``threading`` runs them as a thread at the first wait). Each future holds the result or the
exception the same call gives on a thread of CPython's pool, so ``map``, ``submit`` with ``result()`` and
``as_completed`` give what they give there; only the time each call starts differs (a task that waits for
another to release it would wait for ever, which no single-threaded pool can run)."""

import itertools
import threading

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
        # Host tool calls submitted and not started yet, and the thread that starts them together.
        self._deferred = []
        self._flusher = None

    def _flush(self):
        """Start the host tool calls submitted so far together (up to ``max_workers`` at once) and wait for all."""
        batch, self._deferred, self._flusher = self._deferred, [], None
        if not batch:
            return
        import asyncio

        limit = asyncio.Semaphore(self._max_workers)

        async def one(future, fn, args, kwargs):
            async with limit:
                if not future.set_running_or_notify_cancel():
                    return
                try:
                    result = await fn(*args, **kwargs)
                except Exception as error:
                    future.set_exception(error)
                else:
                    future.set_result(result)

        async def every():
            await asyncio.gather(*(one(*task) for task in batch))

        asyncio.run(every())

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
        if getattr(fn, "__module__", None) == "tools" and _no_running_loop():
            self._deferred.append((future, fn, args, kwargs))
            if self._flusher is None:
                self._flusher = threading.Thread(target=self._flush, name=f"{self._thread_name_prefix}_0", daemon=True)
                self._flusher.start()
            return future
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
        if cancel_futures:
            for future, _fn, _args, _kwargs in self._deferred:
                future.cancel()
        if self._flusher is not None:
            self._flusher.join()

    shutdown.__doc__ = _base.Executor.shutdown.__doc__


def _no_running_loop():
    """Whether no event loop runs (in async code a tool's call is already an awaitable of its own)."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False
