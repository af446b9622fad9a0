"""asyncio's event loop in the sandbox, in the place of ``asyncio.unix_events``. The scheduling is CPython's
own (``BaseEventLoop``: callbacks, timers, tasks, ``run_until_complete``); between callbacks the loop waits
for the host calls async code started, and on the clock, as the sandbox has no file descriptors. What the sandbox lacks is refused when used:
sockets, pipes and subprocesses raise OSError, signal handlers and descriptor watches NotImplementedError.
``run_in_executor`` (and so ``asyncio.to_thread``) calls the function at once in this thread, the only one
the sandbox has, and returns its outcome as a done future."""

import errno

from . import base_events, events

__all__ = ("SelectorEventLoop", "EventLoop")

_WAITS_FOREVER = (
    "the event loop would wait forever: no callback is ready, no timer is set, and nothing outside the "
    "sandbox can wake it (a task awaits a future or event that nothing will complete)"
)


class _Clock:
    """What the loop waits on between callbacks: host calls that async code started (see ``_sandbox_async``),
    and time."""

    def select(self, timeout):
        import _sandbox_async

        if _sandbox_async.pending():
            _sandbox_async.deliver(timeout)
            return []
        if timeout is None:
            raise RuntimeError(_WAITS_FOREVER)
        if timeout > 0:
            import time

            time.sleep(timeout)
        return []

    def close(self):
        pass


def _no_network(*args, **kwargs):
    raise OSError(errno.EACCES, "the sandbox has no network: sockets are not available")


def _no_programs(*args, **kwargs):
    raise OSError(errno.EACCES, "the sandbox cannot start programs: subprocesses are not available")


def _no_pipes(*args, **kwargs):
    raise OSError(errno.EACCES, "the sandbox has no pipes or file descriptors")


def _coroutine(refuse):
    async def method(self, *args, **kwargs):
        refuse()

    return method


class SandboxEventLoop(base_events.BaseEventLoop):
    def __init__(self):
        super().__init__()
        self._selector = _Clock()

    def _process_events(self, event_list):
        pass

    def _write_to_self(self):
        pass

    def run_in_executor(self, executor, func, *args):
        self._check_closed()
        if self._debug:
            self._check_callback(func, "run_in_executor")
        future = self.create_future()
        try:
            result = func(*args)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            future.set_exception(exc)
        else:
            future.set_result(result)
        return future

    def set_default_executor(self, executor):
        self._default_executor = executor

    # What needs sockets, pipes or programs.
    create_connection = create_server = create_datagram_endpoint = _coroutine(_no_network)
    create_unix_connection = create_unix_server = connect_accepted_socket = _coroutine(_no_network)
    getaddrinfo = getnameinfo = start_tls = sendfile = _coroutine(_no_network)
    sock_recv = sock_recv_into = sock_recvfrom = sock_recvfrom_into = _coroutine(_no_network)
    sock_sendall = sock_sendto = sock_connect = sock_accept = sock_sendfile = _coroutine(_no_network)
    connect_read_pipe = connect_write_pipe = _coroutine(_no_pipes)
    subprocess_exec = subprocess_shell = _coroutine(_no_programs)

    def add_reader(self, fd, callback, *args):
        raise NotImplementedError("the sandbox has no file descriptors to watch")

    add_writer = add_reader

    def remove_reader(self, fd):
        return False

    remove_writer = remove_reader

    def add_signal_handler(self, sig, callback, *args):
        raise NotImplementedError("the sandbox does not deliver signals")

    def remove_signal_handler(self, sig):
        return False


class _SandboxEventLoopPolicy(events._BaseDefaultEventLoopPolicy):
    _loop_factory = SandboxEventLoop


SelectorEventLoop = EventLoop = SandboxEventLoop
_DefaultEventLoopPolicy = _SandboxEventLoopPolicy
