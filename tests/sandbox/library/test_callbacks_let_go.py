"""What native code is given to call back (a sort key, a `repl`, a `finditer`'s iterator) goes when the call does.
RustPython leaks a native function's closure for the life of the process, so one made per call kept the caller's
key function, and everything it held, for ever: twenty sorts with a key holding 1 MB each kept 20 MB."""

from __future__ import annotations

LET_GO = r"""
import gc, re, weakref

class Big:
    def __init__(self):
        self.data = bytearray(10**6)

refs = []
for n in range(20):
    b = Big()
    refs.append(weakref.ref(b))
    sorted([3, 1, 2], key=lambda v, b=b: v)
    sorted(["b", "a", 1.5, 2], key=lambda v, b=b: str(v))
    [1, 2, 3].sort(key=lambda v, b=b: -v)
    [(1, "a"), (0, "b")].sort(key=lambda v, b=b: v)
    re.sub(rb"a", lambda m, b=b: b"x", bytearray(b"abca"))
    re.sub(r"a", lambda m, b=b: "x", "abca")
    list(re.finditer(rb"a", bytearray(b"aba")))
    del b
gc.collect()
print(sum(r() is not None for r in refs))
"""


def test_keys_and_callables_given_to_native_code_are_let_go(interp):
    assert interp.execute(LET_GO) == "0\n"
