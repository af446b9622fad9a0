"""``exit`` and ``quit`` as CPython's ``site`` adds them to the builtins; written for dspy-rust-interpreter.

RustPython's own ``exit()`` raises ``SystemExit(0)`` where CPython raises ``SystemExit(None)`` (a cell that ends
with it reports ``SystemExit: None``), and RustPython has no ``quit()``. ``sys.exit`` is the sandbox's too
(``src/sandbox/prepare.rs``).
"""


class Quitter:
    def __init__(self, name, eof):
        self.name = name
        self.eof = eof

    def __repr__(self):
        return f"Use {self.name}() or {self.eof} to exit"

    def __call__(self, code=None):
        raise SystemExit(code)


def install(builtins):
    builtins.exit = Quitter("exit", "Ctrl-D (i.e. EOF)")
    builtins.quit = Quitter("quit", "Ctrl-D (i.e. EOF)")
