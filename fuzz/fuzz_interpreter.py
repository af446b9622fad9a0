"""Fuzz RustInterpreter with generated and mutated Python programs.

The parent process runs a child that executes programs one after another and reports each before and after
running it. A child that dies (a crash of the host process) or goes quiet for longer than the time limit plus
the abandon grace plus slack (a hang) is a finding: the program is saved under ``fuzz/findings/`` and the
run fails. Programs come from a corpus (the security and limit snippets of the test suite, plus language
snippets) mutated line- and token-wise, and from a small random expression generator.

Then a differential phase: cells made of random sequences of statements of every kind
(``tests/fidelity/test_cell_shapes.py``'s generator, seeded from the run's seed) run in fresh sandboxes and in
the reference CPython; a cell whose outcome differs is a finding too.

    python fuzz/fuzz_interpreter.py --seconds 120          # what CI runs
    python fuzz/fuzz_interpreter.py --seconds 3600 --seed 7 # a longer campaign
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT = 0.5  # the interpreter's time limit per execute (seconds)
ABANDON_AFTER = 1.0  # its grace for uninterruptible work
HANG_SLACK = float(os.environ.get("FUZZ_HANG_SLACK", "10"))  # beyond timeout + grace, silence is a hang
MEMORY_LIMIT = 256 << 20

CORPUS = [
    "x = 1\nprint(x + 1)",
    "def f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\nf(15)",
    "class A:\n    def __init__(self, v):\n        self.v = v\n    def __repr__(self):\n        return f'A({self.v})'\nA(3)",
    "def gen():\n    for i in range(10):\n        yield i * i\nsum(gen())",
    "import json\njson.dumps({'a': [1, 2, {'b': None}]})",
    "import re\nre.findall(r'(a+)(b*)', 'aaabbab' * 10)",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print(e)",
    "match [1, 2]:\n    case [a, b]:\n        print(a + b)",
    "@property\ndef p(self):\n    return 1",
    "import collections\ncollections.Counter('hello world').most_common(3)",
    "data = [i for i in range(1000)]\n{k: v for k, v in zip(data, reversed(data))}",
    "SUBMIT(42)",
    "FINAL_VAR('x')",
    "call_tool('echo', 1, k=2)",
    "echo(x=[1, 2, 3])",
    "import sys\nsys.setrecursionlimit(100000)",
    "def r():\n    return r()\nr()",
    "while True:\n    pass",
    "import time\ntime.sleep(10)",
    "'a' * 10**10",
    "().__class__.__base__.__subclasses__()",
    "import sys\nsys._getframe().f_back",
    "import gc",
    "import os\nos.system('id')",
    "open('/etc/passwd').read()",
    "eval('(' * 1000 + ')' * 1000)",
    "exec('x = ' + '[' * 200 + ']' * 200)",
    "compile('pass', 'f', 'exec').replace(co_consts=(1,))",
    "'{0.__class__}'.format(1)",
    "import builtins\nbuiltins.len = None",
    "class E(Exception):\n    def __str__(self):\n        raise E()\nraise E()",
    "class R:\n    def __repr__(self):\n        while True: pass\nR()",
    "import _thread\n_thread.start_new_thread(print, (1,))",
    "x = []\nx.append(x)\nx",
    "print('y' * 10**6)",
    "import itertools\nlist(itertools.islice(itertools.count(), 10**5))",
    "sorted(range(10**5), key=lambda v: -v)[:3]",
    "import decimal\ndecimal.Decimal(1) / decimal.Decimal(7)",
    "b = bytearray(10)\nb[2:4] = b'xy'\nbytes(b)",
    "global_var = {'k': {1, 2}}\nglobal_var",
]

# Read, not optional: a moved file fails the run rather than leaving the corpus smaller without a word.
TEST_FILES = ["isolation/test_security.py", "sandbox/vm/test_limits.py"]


def load_corpus() -> list[str]:
    """The built-in snippets plus every string literal of sandbox code found in the security/limit tests."""
    corpus = list(CORPUS)
    for name in TEST_FILES:
        path = HERE.parent / "tests" / name
        for literal in re.findall(r'"((?:[^"\\\n]|\\.){8,})"', path.read_text()):
            try:
                corpus.append(bytes(literal, "utf-8").decode("unicode_escape"))
            except UnicodeDecodeError:
                pass
    return corpus


ATOMS = [
    "0",
    "1",
    "-1",
    "2**64",
    "10**9",
    "3.5",
    "float('nan')",
    "''",
    "'abc'",
    "b'xy'",
    "None",
    "True",
    "[]",
    "[1, 2]",
    "{}",
    "{'a': 1}",
    "()",
    "(1,)",
    "set()",
    "x",
    "len",
    "print",
    "echo",
    "range(5)",
]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "==", "<", "in", "is", "and", "or"]


def random_expression(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice(ATOMS)
    if roll < 0.55:
        return f"({random_expression(rng, depth + 1)} {rng.choice(OPERATORS)} {random_expression(rng, depth + 1)})"
    if roll < 0.7:
        return f"{rng.choice(['len', 'str', 'repr', 'list', 'sorted', 'sum', 'abs', 'hash', 'echo', 'call_tool'])}({random_expression(rng, depth + 1)})"
    if roll < 0.8:
        return f"[{random_expression(rng, depth + 1)} for _ in range({rng.randint(0, 50)})]"
    if roll < 0.9:
        return f"{random_expression(rng, depth + 1)}[{random_expression(rng, depth + 1)}]"
    return f"{random_expression(rng, depth + 1)}.{rng.choice(['__class__', '__dict__', 'append', 'keys', '__subclasses__', 'f_back', 'real'])}"


def mutate(program: str, rng: random.Random, corpus: list[str]) -> str:
    lines = program.split("\n")
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.15 and len(lines) > 1:
            del lines[rng.randrange(len(lines))]
        elif roll < 0.3:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(rng.choice(corpus).split("\n")))
        elif roll < 0.45:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
        elif roll < 0.6:
            i = rng.randrange(len(lines))
            lines[i] = re.sub(r"\b\d+\b", lambda _: rng.choice(["0", "-1", "10**6", "2**63", "999999999"]), lines[i], count=1)
        elif roll < 0.7:
            body = "\n".join("    " + line for line in lines)
            lines = ["try:", body, "except BaseException as _e:", "    print(type(_e).__name__)"]
        elif roll < 0.8:
            body = "\n".join("    " + line for line in lines)
            lines = [f"for _i in range({rng.randint(1, 3)}):", body]
        elif roll < 0.9:
            lines.append(random_expression(rng))
        else:
            i = rng.randrange(len(lines))
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + rng.choice(["(", ")", ":", "'", "\\", "[", "**", "lambda: ", " if "]) + lines[i][cut:]
    return "\n".join(lines)


def child(seed: int, start_index: int) -> None:
    from dspy_rust_interpreter import CodeInterpreterError, RustInterpreter

    rng = random.Random(seed * 1_000_003 + start_index)
    corpus = load_corpus()

    def new_interpreter() -> RustInterpreter:
        return RustInterpreter(
            tools={"echo": lambda *a, **k: [list(a), k]},
            timeout=TIMEOUT,
            abandon_after=ABANDON_AFTER,
            memory_limit=MEMORY_LIMIT,
            max_output_chars=100_000,
        )

    interp = new_interpreter()
    index = start_index
    while True:
        if rng.random() < 0.2:
            program = random_expression(rng)
        else:
            program = mutate(rng.choice(corpus), rng, corpus)
        print(json.dumps({"run": index, "code": program}), flush=True)
        if os.environ.get("FUZZ_SELF_TEST") == "crash" and index == 3:
            os.abort()  # proves the harness reports a dying host (tests/test_fuzz_harness.py)
        if os.environ.get("FUZZ_SELF_TEST") == "hang" and index == 3:
            time.sleep(3600)
        outcome = "ok"
        try:
            interp.execute(program, variables={"x": rng.choice([1, "s", [1, 2], {"k": None}])})
        except CodeInterpreterError as error:
            outcome = type(error).__name__
            if type(error).__name__ == "CodeInterpreterError":
                # An abandoned session keeps its thread busy: start afresh in a new process.
                print(json.dumps({"done": index, "outcome": "abandoned"}), flush=True)
                os._exit(3)
        except (SyntaxError, ValueError, TypeError) as error:
            outcome = type(error).__name__
        print(json.dumps({"done": index, "outcome": outcome}), flush=True)
        index += 1
        if index % 200 == 0:
            interp.shutdown()
            interp = new_interpreter()


def parent(seconds: float, seed: int) -> int:
    deadline = time.monotonic() + seconds
    hang_after = TIMEOUT + ABANDON_AFTER + HANG_SLACK
    findings_dir = HERE / "findings"
    findings: list[str] = []
    executed = 0
    outcomes: dict[str, int] = {}
    next_index = 0
    while time.monotonic() < deadline and len(findings) < 5:
        errors = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a chatty child must never block
        process = subprocess.Popen(
            [sys.executable, __file__, "--child", "--seed", str(seed), "--start", str(next_index)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            bufsize=1,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        lines: queue.Queue[str | None] = queue.Queue()

        # Each child's lines go to its own queue: bound here, not looked up when the thread runs (the last
        # child's pump, reading its end of file late, put its None in the next child's queue, and the harness
        # then waited for a child that runs until killed).
        def pump(stream=process.stdout, lines=lines) -> None:
            for line in stream:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        last_code, last_index, last_seen = None, None, time.monotonic()
        problem = None
        finished = False
        while True:
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                line = ""
            if line is None:
                finished = True
            elif line.startswith("{"):
                message = json.loads(line)
                last_seen = time.monotonic()
                if "run" in message:
                    last_index, last_code = message["run"], message["code"]
                else:
                    executed += 1
                    outcomes[message["outcome"]] = outcomes.get(message["outcome"], 0) + 1
                    last_code = None
            if finished:
                process.wait()
                if process.returncode != 3 and (process.returncode != 0 or last_code is not None):
                    problem = f"crash (exit code {process.returncode})"
                break
            if last_code is not None and time.monotonic() - last_seen > hang_after:
                problem = f"hang (no result after {hang_after:.0f} s)"
                process.kill()
                break
            if time.monotonic() > deadline:
                process.kill()
                break
        process.wait()
        if problem and last_code is not None:
            findings_dir.mkdir(exist_ok=True)
            path = findings_dir / f"seed{seed}-run{last_index}.py"
            path.write_text(f"# {problem}\n{last_code}\n")
            errors.seek(0)
            stderr = errors.read()[-2000:]
            findings.append(f"{problem}: {path}\n{last_code}\n{stderr}")
        errors.close()
        next_index = (last_index or next_index) + 1
    print(f"fuzz: {executed} programs in {seconds:.0f} s (seed {seed}); outcomes: {json.dumps(outcomes, sort_keys=True)}")
    for finding in findings:
        print(f"FINDING: {finding}")
    print(f"fuzz: {len(findings)} findings (crashes or hangs)")
    return 1 if findings else 0


def differential(seed: int, count: int) -> int:
    """Random statement sequences in the sandbox and in the reference CPython; each difference is a finding."""
    for folder in (HERE.parent / "tests", HERE.parent / "tests" / "fidelity"):
        sys.path.insert(0, str(folder))
    from cells import comparable, cpython_cells, in_sandbox
    from test_cell_shapes import random_cells

    from dspy_rust_interpreter import RustInterpreter

    cells = random_cells(count, seed=1000 + seed)
    expected = cpython_cells([source for _, source in cells], fresh=True)
    findings = []
    for (name, source), wanted in zip(cells, expected):
        interp = RustInterpreter(timeout=10)
        try:
            got = in_sandbox(interp, source)
        finally:
            interp.shutdown()
        if comparable(got) != comparable(wanted):
            findings.append(f"{name}:\n{source}\ncpython: {wanted}\nsandbox: {got}")
    if findings:
        (HERE / "findings").mkdir(exist_ok=True)
        (HERE / "findings" / f"seed{seed}-differential.txt").write_text("\n\n".join(findings))
    for finding in findings:
        print(f"FINDING (differs from CPython): {finding}")
    print(f"fuzz: {count} random cells compared with CPython (seed {seed}); {len(findings)} differ")
    return 1 if findings else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--cells", type=int, default=80, help="random cells compared with CPython")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "1")))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.seed, args.start)
    else:
        crashes = parent(args.seconds, args.seed)
        sys.exit(differential(args.seed, args.cells) or crashes)


if __name__ == "__main__":
    main()
