"""Fuzz the native entry points that call back into sandbox code, with callbacks that change what is being worked on.

Native code that holds a pointer, a slice or a lock on a sandbox object while it calls sandbox code (a `repl` for
`re.sub`, a sort key, `__eq__`, `__hash__`, `__index__`, `__format__`, a `__del__` a collection runs at any
allocation) must survive that code mutating, resizing, clearing or re-entering the object. Each generated program
picks an entry point, a subject (bytearray, array, memoryview, list, dict, str) and a callback that does one of
those things, then runs in one session; a program that ends the session process (a panic on a held lock, a fault,
an abort: the session is rolled back and its process changes) is a finding, saved under ``fuzz/findings/``. What
the program raises is not judged: BufferError, RuntimeError ("changed size during iteration") and ValueError
("list modified during sort") are CPython's answers too.

    python fuzz/fuzz_callbacks.py --seconds 60            # what `make fuzz` runs
    python fuzz/fuzz_callbacks.py --seconds 3600 --seed 7 # a campaign
    python fuzz/fuzz_callbacks.py --emit 40 --seed 7 > p  # programs for the memory-checked run (`make fuzz`)
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

SUBJECTS = {
    "bytearray": "bytearray(b'ab cd ab ef ' * {n})",
    "array": "array.array('b', b'ab cd ab ef ' * {n})",
    "memoryview": "memoryview(bytearray(b'ab cd ab ef ' * {n}))",
    "list": "[b'ab', b'cd', 'ab', 'ef', 3, 1.5] * {n}",
    "strs": "['ab', 'cd', 'ab', 'ef'] * {n}",
    "ints": "list(range({n} * 4))",
    "dict": "dict.fromkeys(['ab', 'cd', 'ef', 'gh'] * {n}, 1)",
}

# What a callback does to the subject `S` (some fail on some subjects: that is the program's error, not a finding).
MUTATIONS = [
    "S[:] = S[:1]",
    "S[:] = S[:] * 3",
    "S.clear()",
    "del S[:]",
    "S[0:2] = S[2:4]",
    "S.extend(S[:2])",
    "S.append(S[0])",
    "S.pop()",
    "S.reverse()",
    "S.sort(key=str)",
    "S[0] = S[-1]",
    "S.insert(0, S[-1])",
    "S.update({'zz': 2})",
    "S.popitem()",
    "S.release()",
    "S.tobytes()",
    "REENTER()",
    "gc.collect()",
    "pass",
]

# Entry points, each a statement that runs the callback `CB` against the subject `S` (or that re-enters).
ENTRY_POINTS = [
    "re.sub(rb'\\w+', lambda m: (CB(m), b'-')[1], S)",
    "re.subn(rb'ab', lambda m: (CB(m), b'')[1], S)",
    "re.sub(r'\\w+', lambda m: (CB(m), '-')[1], ' '.join(map(str, S)) if not isinstance(S, str) else S)",
    "list(re.finditer(rb'ab', S)) and [CB(m) for m in re.finditer(rb'(a)(b)', S)]",
    "re.findall(rb'(a)(b)', S) and CB(0)",
    "re.split(rb' ', S) and CB(0)",
    "sorted(S, key=lambda v: (CB(v), str(v))[1])",
    "S.sort(key=lambda v: (CB(v), str(v))[1])",
    "heapq.nlargest(3, S, key=lambda v: (CB(v), str(v))[1])",
    "heapq.nsmallest(3, S, key=lambda v: (CB(v), str(v))[1])",
    "min(S, key=lambda v: (CB(v), str(v))[1])",
    "collections.Counter(K(v) for v in S)",
    "collections.Counter(map(K, S))",
    "set(map(K, S))",
    "sorted(map(K, S))",
    "sum(N(v) for v in range(10))",
    "list(itertools.compress(S, (B() for _ in range(64))))",
    "'{}{}'.format(F(), F())",
    "'%s %s' % (F(), F())",
    "f'{F():>10}'",
    "{K(v): v for v in S}",
    "bisect.bisect(sorted(map(K, S)), K(0))",
    "' '.join(str(CB(v)) for v in S)",
    "any(CB(v) for v in S)",
    "list(map(CB, S))",
    "[CB(v) for v in S if CB(v) is None]",
]

HELPERS = """
import array, bisect, collections, gc, heapq, itertools, re
S = {subject}
DEPTH = [0]
def REENTER():
    if DEPTH[0] < 2:
        DEPTH[0] += 1
        try:
            {entry_again}
        finally:
            DEPTH[0] -= 1
CALLS = [0]
def CB(value=None):
    CALLS[0] += 1
    # Bounded growth: the memory-checked run has no memory limit.
    if CALLS[0] % {every} == 0 and CALLS[0] < 2000 and len(S) < 4096:
        {mutation}
@__import__('functools').total_ordering
class K:
    def __init__(self, v):
        self.v = str(v)
    def __hash__(self):
        CB(self.v)
        return hash(self.v) & 7
    def __eq__(self, other):
        CB(self.v)
        return isinstance(other, K) and self.v == other.v
    def __lt__(self, other):
        CB(self.v)
        return self.v < other.v
class N:
    def __init__(self, v):
        self.v = v
    def __add__(self, other):
        CB(self.v)
        return N(self.v)
    __radd__ = __add__
    def __index__(self):
        CB(self.v)
        return 1
class B:
    def __bool__(self):
        CB()
        return True
class F:
    def __format__(self, spec):
        CB()
        return 'f'
    def __str__(self):
        CB()
        return 's'
class D:
    def __del__(self):
        try:
            CB()
        except Exception:
            pass
        if {collect}:
            d = D()
            d.cycle = d
if {collect}:
    d = D()
    d.cycle = d
    gc.set_threshold(1)
"""


def program(rng: random.Random) -> str:
    entry = rng.choice(ENTRY_POINTS)
    text = HELPERS.format(
        subject=SUBJECTS[rng.choice(list(SUBJECTS))].format(n=rng.choice([1, 3, 50])),
        entry_again=rng.choice(ENTRY_POINTS),
        every=rng.choice([1, 2, 5]),
        mutation=rng.choice(MUTATIONS),
        collect=rng.random() < 0.3,
    )
    return text + f"try:\n    {entry}\nfinally:\n    gc.set_threshold(2000)\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "1")))
    parser.add_argument("--emit", type=int, default=0, help="print this many programs, for the memory-checked run")
    args = parser.parse_args()
    if args.emit:
        emitting = random.Random(args.seed)
        print("\n#---\n".join(program(emitting) for _ in range(args.emit)))
        return 0
    sys.path.insert(0, str(HERE.parent))
    from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, RustInterpreter

    rng = random.Random(args.seed)
    interp = RustInterpreter(timeout=2.0, abandon_after=1.0, memory_limit=256 << 20)
    interp.execute("1")
    deadline = time.monotonic() + args.seconds
    count, findings = 0, 0
    while time.monotonic() < deadline:
        source = program(rng)
        count += 1
        reason = None
        if os.environ.get("FUZZ_SELF_TEST") == "crash" and count == 3:
            # Proves a session process that dies mid-program is reported (tests/test_fuzz_harness.py).
            interp._session._inject_fault("abort")
        try:
            interp.execute(source)
        except CodeExecutionError as error:
            # A crash or a lost process; a time or memory limit that had to abandon the run rolls back too, and
            # says so: not a finding.
            if error.error_type == "SystemError" and "the sandbox's process" in str(error):
                reason = str(error).splitlines()[0]
        except CodeInterpreterError as error:
            reason = f"the session died: {error}"
        if reason is not None:
            findings += 1
            folder = HERE / "findings"
            folder.mkdir(exist_ok=True)
            path = folder / f"callbacks-{args.seed}-{count}.py"
            path.write_text(source)
            print(f"FINDING: {reason} ({path})", flush=True)
            interp.shutdown()
            interp = RustInterpreter(timeout=2.0, abandon_after=1.0, memory_limit=256 << 20)
        elif count % 50 == 0:
            # A fresh session now and then: state the programs left (a monkeypatched module) does not pile up.
            interp.shutdown()
            interp = RustInterpreter(timeout=2.0, abandon_after=1.0, memory_limit=256 << 20)
    interp.shutdown()
    print(f"{count} programs, {findings} findings (seed {args.seed})", flush=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
