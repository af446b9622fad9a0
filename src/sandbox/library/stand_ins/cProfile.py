"""cProfile over `profile`'s pure-Python profiler: CPython's is `_lsprof`, native code the sandbox does not
build. The interface is cProfile's (`run`, `runctx`, `Profile` with `enable`/`disable` and `with`), the
statistics `pstats` reads are `profile`'s (same shape; its timings are slower, as the pure profiler is)."""

import sys

import profile as _pyprofile

__all__ = ["run", "runctx", "Profile"]


class Profile(_pyprofile.Profile):
    """Profile(timer=None, timeunit=None, subcalls=True, builtins=True)"""

    def __init__(self, timer=None, timeunit=None, subcalls=True, builtins=True):
        super().__init__(timer) if timer is not None else super().__init__()
        self._entered = set()

    def _between(self, frame, event, arg):
        # Enabled mid-call: a frame that returns without having been seen called (enable()'s caller, or a
        # builtin called before) is not this profile's; `profile` would take it for a bad return.
        if event == "call":
            self._entered.add(id(frame))
        elif event == "return":
            if id(frame) not in self._entered:
                return
            self._entered.discard(id(frame))
        elif event in ("c_return", "c_exception") and not self._entered:
            return
        self.dispatcher(frame, event, arg)

    def enable(self, subcalls=True, builtins=True):
        self.set_cmd("<enabled>")
        sys.setprofile(self._between)

    def disable(self):
        sys.setprofile(None)

    def __enter__(self):
        self.enable()
        return self

    def __exit__(self, *exc_info):
        self.disable()


def run(statement, filename=None, sort=-1):
    return _pyprofile._Utils(Profile).run(statement, filename, sort)


def runctx(statement, globals, locals, filename=None, sort=-1):
    return _pyprofile._Utils(Profile).runctx(statement, globals, locals, filename, sort)


run.__doc__ = _pyprofile.run.__doc__
runctx.__doc__ = _pyprofile.runctx.__doc__
