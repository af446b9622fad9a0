"""pdb: the sandbox has no debugger (nothing is attached to a session's standard input). `breakpoint()`,
`pdb.set_trace()` and stopping in a `Pdb` say so; the module exists so that `doctest`, which makes one for
every run, works."""

_NO_DEBUGGER = "the sandbox has no debugger: nothing is attached to its standard input; print the values you need"


class Pdb:
    """Made and reset by `doctest` around every run; stopping in it is what fails."""

    def __init__(self, *args, **kwargs):
        self.stdout = kwargs.get("stdout")

    def reset(self):
        pass

    def set_continue(self):
        pass

    def set_trace(self, *args, **kwargs):
        raise RuntimeError(_NO_DEBUGGER)


def set_trace(*args, **kwargs):
    raise RuntimeError(_NO_DEBUGGER)


def post_mortem(*args, **kwargs):
    raise RuntimeError(_NO_DEBUGGER)


def pm():
    raise RuntimeError(_NO_DEBUGGER)


def run(*args, **kwargs):
    raise RuntimeError(_NO_DEBUGGER)


runcall = runeval = run
