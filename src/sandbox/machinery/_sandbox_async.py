"""The sandbox's side of asyncio: runs a cell that awaits at top level, as IPython does (on the session's own
event loop, which lasts from cell to cell, so tasks one cell starts go on whenever a later cell awaits); and
keeps the host calls that async code started (each a ``HostCall`` future) until the event loop, with nothing
else to run, collects their results from the host. Imports asyncio only when used."""

import sys

_loop = None
# Host calls in flight: call id -> HostCall future; and the native wait for their results.
_calls = {}
_wait = None


def run_cell(coroutine):
    global _loop
    import asyncio

    if _loop is None or _loop.is_closed():
        _loop = asyncio.new_event_loop()
        _loop.set_exception_handler(_report)
    return _loop.run_until_complete(coroutine)


def _report(loop, context):
    """The session loop's exception handler: a task or future that failed only because a host call it awaited
    was lost with the cell that started it (see ``forget``) is not reported as never retrieved into a later
    cell's output; everything else is reported as asyncio does."""
    if getattr(context.get("exception"), "_lost_host_call", False):
        return
    loop.default_exception_handler(context)


def settle():
    """After a run a limit stopped: the loop it was running was unwound without its cleanup (a stopped run
    runs no ``finally``) and still reads as running, with the task it was in still entered. End both as the
    loop's and the task's own cleanup would have."""
    events = sys.modules.get("asyncio.events")
    loop = events._get_running_loop() if events is not None else None
    if loop is None:
        return
    tasks = sys.modules.get("asyncio.tasks")
    if tasks is not None:
        tasks._current_tasks.pop(loop, None)
    try:
        loop._run_forever_cleanup()
    finally:
        events._set_running_loop(None)


_HostCall = None


def _host_call_type():
    global _HostCall
    if _HostCall is None:
        from asyncio import futures

        class HostCall(futures.Future):
            """A tool called from async code: the host runs it while the sandbox goes on; await it for its
            result (several at once with asyncio.gather)."""

            def __getattr__(self, name):
                raise AttributeError(
                    f"{self._tool}(...) was called from async code, so it returns an awaitable, not its result: "
                    f"write `await {self._tool}(...)` (or gather several calls with asyncio.gather)"
                )

            def __repr__(self):
                state = "pending" if not self.done() else "cancelled" if self.cancelled() else "finished"
                return f"<HostCall {self._tool}() {state}>"

        _HostCall = HostCall
    return _HostCall


def start_call(call_id, tool, wait):
    """The awaitable of a host call the native layer just started."""
    global _wait
    import asyncio

    _wait = wait
    future = _host_call_type()(loop=asyncio.get_running_loop())
    future._tool = tool
    _calls[call_id] = future
    return future


def pending():
    """Whether a host call is still awaited by someone (a cancelled one's result is not waited for)."""
    for call_id, future in list(_calls.items()):
        if future.done():
            del _calls[call_id]
    return bool(_calls)


def forget():
    """A new run: the host dropped the results of the calls an earlier run left running. Whatever still awaits
    one gets an error saying so, when its loop runs again."""
    calls = list(_calls.values())
    _calls.clear()
    for future in calls:
        if not future.done():
            try:
                lost = RuntimeError(
                    f"{future._tool}() was still running when the cell that called it ended, and its result is "
                    "gone: call it again and await it in the same cell"
                )
                lost._lost_host_call = True  # see _report
                future.set_exception(lost)
            except RuntimeError:
                pass  # its loop is closed: nothing can await it
            # Told to whoever awaits it; one nobody awaits is not logged as "never retrieved" into a later
            # cell's output when it is collected.
            future._log_traceback = False


def deliver(timeout):
    """Wait up to ``timeout`` seconds (None: until one) for host calls to finish, and resolve their futures."""
    results = _wait(None if timeout is None else float(timeout))
    for call_id, ok, value in results:
        future = _calls.pop(call_id, None)
        if future is None or future.done():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
    if timeout is None and not results:
        # The host has none of them running (it can only happen if this process's bookkeeping was replaced).
        for future in _calls.values():
            if not future.done():
                future.set_exception(RuntimeError(f"the host has no running call of {future._tool}(); call it again"))
        _calls.clear()
