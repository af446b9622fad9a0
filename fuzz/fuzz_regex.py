"""Differential fuzzing of regular expressions: the sandbox's `re` against CPython's (issue 30).

The sandbox searches with a finite automaton first and lets `_sre` make each match where the automaton says
one can start (src/sandbox/library/re/); every result must still be CPython's. Random patterns come from a
grammar of `re`'s syntax (literals, sets, categories, anchors, word boundaries, groups, named groups,
alternation, greedy/lazy/possessive repeats, atomic groups, lookarounds, inline flags: the syntax the
automaton reads; a backreference keeps RustPython's own search),
random subjects from small alphabets (ASCII-only, and with characters whose case or class is tricky: `ß`,
`İ`, `ſ`, the Kelvin sign, `²`, `١`, U+2028...), random flags (`I`, `M`, `S`, `A`, `X`), `pos`/`endpos`.
Each case runs `search`, `match`, `fullmatch`, `findall`, `finditer` (spans, groups, `lastindex`), `sub`
(a template, a callable, empty matches), `subn` with a count, and `split` in both and compares the lot.

A batch of cases runs in one `execute()` of a fresh sandbox and in one CPython process; a difference is
written to ``fuzz/findings/regex-*.json`` (pattern, flags, subject, both results) and fails the run. Cases
that differ only where the sandbox is knowingly not CPython (listed in KNOWN, with why) are not findings.

    python fuzz/fuzz_regex.py --seconds 60              # what `make fuzz` runs
    python fuzz/fuzz_regex.py --seconds 3600 --seed 7   # a campaign
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from cpython import reference_python  # noqa: E402

ASCII_ALPHABET = "aab bA_1\n9-.xyz"
UNICODE_ALPHABET = "aAbß ẞİıſsSKk\u212a²١é\u0301\u2028\n_-Σσς"
LITERALS = list("abAxyz19_-é") + ["ß", "İ", "ſ", "k", "σ", " ", "\\n", "\\.", "\\-", "\\u212a"]
CLASSES = [
    "\\d",
    "\\w",
    "\\s",
    "\\D",
    "\\W",
    "\\S",
    ".",
    "[ab]",
    "[^a\\n]",
    "[a-z]",
    "[A-Z0-9]",
    "[\\w-]",
    "[^\\W\\d]",
    "[ß-ſ]",
    "[σΣ]",
    "[^ ]",
    "[\\s\\d]",
    "[k]",
    "[.]",
]
ANCHORS = ["^", "$", "\\A", "\\Z", "\\b", "\\B"]
QUANTIFIERS = ["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "*?", "+?", "??", "{1,2}?", "*+", "++", "?+"]
FLAG_NAMES = ["I", "M", "S", "A", "X"]


def pattern(rng: random.Random, depth: int = 0, groups: list[int] | None = None, capturing: bool = True) -> str:
    """A random pattern; ``groups`` counts the capturing groups opened so far (for backreferences). Without
    ``capturing``, every group is non-capturing: a pattern without groups that reads exactly is matched by an
    automaton alone (src/sandbox/library/re/translate.rs), and this keeps such patterns common."""
    groups = groups if groups is not None else [0]
    parts = []
    for _ in range(rng.randint(1, 4 if depth else 5)):
        roll = rng.random()
        if roll < 0.3:
            atom = rng.choice(LITERALS)
        elif roll < 0.5:
            atom = rng.choice(CLASSES)
        elif roll < 0.58:
            atom = rng.choice(ANCHORS)
        elif roll < 0.8 and depth < 3:
            inner = pattern(rng, depth + 1, groups, capturing)
            kind = rng.random()
            if kind < 0.5 and not capturing:
                atom = f"(?:{inner})"
            elif kind < 0.35:
                groups[0] += 1
                atom = f"({inner})"
            elif kind < 0.5:
                groups[0] += 1
                atom = f"(?P<g{groups[0]}>{inner})"
            elif kind < 0.7:
                atom = f"(?:{inner})"
            elif kind < 0.78:
                atom = f"(?>{inner})"
            elif kind < 0.86:
                atom = f"(?{rng.choice(['=', '!'])}{inner})"
            elif kind < 0.92:
                behind = rng.choice(["a", "b", " ", "ab", "\\d"])
                atom = f"(?<{rng.choice(['=', '!'])}{behind})"
            else:
                atom = f"(?{rng.choice(['i', 's', 'm', 'a', '-i'])}:{inner})"
        else:
            atom = "|".join(pattern(rng, depth + 1, groups, capturing) for _ in range(2)) if depth < 3 else "a"
            atom = f"(?:{atom})"
        if rng.random() < 0.3 and atom not in ANCHORS:
            atom += rng.choice(QUANTIFIERS)
        parts.append(atom)
    if depth == 0 and rng.random() < 0.15:
        return "|".join(parts)
    return "".join(parts)


def subject(rng: random.Random) -> str:
    alphabet = ASCII_ALPHABET if rng.random() < 0.5 else UNICODE_ALPHABET
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))


def case(rng: random.Random) -> dict:
    flags = [f for f in FLAG_NAMES if rng.random() < 0.2]
    if "A" in flags and rng.random() < 0.5:
        flags.remove("A")
    text = subject(rng)
    pos = rng.choice([0, 0, 0, 1, 3, -2, len(text) // 2])
    endpos = rng.choice([None, None, None, len(text) - 1, len(text) + 5, 2, -1])
    return {"pattern": pattern(rng, capturing=rng.random() < 0.6), "flags": flags, "text": text, "pos": pos, "endpos": endpos}


# What each case computes, in the sandbox and in CPython alike. `Match.pos`/`endpos` are left out: RustPython
# reports the match's own span there (a known difference, docs/fidelity.md).
RUNNER = r'''
import re, json

def describe(m):
    if m is None:
        return None
    return [m.span(), [m.span(g) for g in range(1, len(m.groups()) + 1)], m.groups(), m.lastindex, m.group(0)]

def attempt(f):
    try:
        return f()
    except Exception as e:
        return ["error", type(e).__name__]

def prepare(c):
    """The case's pattern compiled and the (string, pos[, endpos]) to search; or no pattern and the error."""
    flags = 0
    for name in c["flags"]:
        flags |= getattr(re, name)
    try:
        p = re.compile(c["pattern"], flags)
    except Exception as e:
        return None, ["compile error", type(e).__name__]
    t, pos, endpos = c["text"], c["pos"], c["endpos"]
    return p, ((t, max(pos, 0)) if endpos is None else (t, max(pos, 0), max(endpos, 0)))

def run(c):
    p, args = prepare(c)
    if p is None:
        return args
    t = c["text"]
    out = {}
    out["search"] = attempt(lambda: describe(p.search(*args)))
    out["match"] = attempt(lambda: describe(p.match(*args)))
    out["fullmatch"] = attempt(lambda: describe(p.fullmatch(*args)))
    out["findall"] = attempt(lambda: p.findall(*args))
    out["finditer"] = attempt(lambda: [describe(m) for m in p.finditer(*args)])
    out["sub"] = attempt(lambda: p.sub("<\\g<0>>", t))
    if p.groups:
        out["sub_group"] = attempt(lambda: p.sub("[\\1]", t, count=2))
    out["sub_call"] = attempt(lambda: p.sub(lambda m: m.group(0)[::-1] + "|", t))
    out["subn"] = attempt(lambda: p.subn("-", t, 3))
    out["split"] = attempt(lambda: p.split(t))
    out["split1"] = attempt(lambda: p.split(t, 1))
    return out

def engine_run(c):
    """The same results from RustPython's own engine alone: a scanner is the one `Pattern` method the
    automaton does not serve, and `sub`, `split`, `findall` are built from its matches as `_sre` builds them.
    `fullmatch` has no scanner form: where the search runs to the end of the string (`endpos` none or past it) and the
    pattern is not verbose (a trailing comment would swallow what follows), it is a scanner's `match` of the
    same pattern followed by `\\Z` (the first match in the engine's order that ends there, as `fullmatch` asks);
    otherwise it is left out."""
    p, args = prepare(c)
    if p is None:
        return args
    t = c["text"]

    def matches(*scan):
        scanner, found = p.scanner(*scan), []
        while (m := scanner.search()) is not None:
            found.append(m)
        return found

    def item(m):
        if p.groups == 0:
            return m.group(0)
        if p.groups == 1:
            return m.group(1) or ""
        return tuple(g or "" for g in m.groups())

    def sub(repl, count=0):
        pieces, last, n = [], 0, 0
        for m in matches(t):
            if count and n >= count:
                break
            pieces.append(t[last:m.start()])
            value = repl(m) if callable(repl) else m.expand(repl)
            if value is not None:
                pieces.append(value)
            last, n = m.end(), n + 1
        pieces.append(t[last:])
        return "".join(pieces), n

    def split(maxsplit=0):
        pieces, last, n = [], 0, 0
        for m in matches(t):
            if maxsplit and n >= maxsplit:
                break
            pieces.append(t[last:m.start()])
            pieces.extend(m.groups())
            last, n = m.end(), n + 1
        pieces.append(t[last:])
        return pieces

    out = {}
    out["search"] = attempt(lambda: describe(p.scanner(*args).search()))
    out["match"] = attempt(lambda: describe(p.scanner(*args).match()))
    if (c["endpos"] is None or c["endpos"] >= len(t)) and not p.flags & re.X:
        # Global flags stay at the start; the group wrapped around the rest captures nothing.
        head = re.match(r"\(\?[aiLmsux]+\)", c["pattern"])
        head = head.group(0) if head else ""
        whole = attempt(lambda: re.compile(head + "(?:" + c["pattern"][len(head):] + ")\\Z", p.flags))
        if isinstance(whole, re.Pattern):
            out["fullmatch"] = attempt(lambda: describe(whole.scanner(*args).match()))
    out["findall"] = attempt(lambda: [item(m) for m in matches(*args)])
    out["finditer"] = attempt(lambda: [describe(m) for m in matches(*args)])
    out["sub"] = attempt(lambda: sub("<\\g<0>>")[0])
    if p.groups:
        out["sub_group"] = attempt(lambda: sub("[\\1]", 2)[0])
    out["sub_call"] = attempt(lambda: sub(lambda m: m.group(0)[::-1] + "|")[0])
    out["subn"] = attempt(lambda: list(sub("-", 3)))
    out["split"] = attempt(lambda: split())
    out["split1"] = attempt(lambda: split(1))
    return out

def anchored_run(c, found):
    """RustPython's engine alone, anchored at the start of each of the sandbox's `finditer` matches: the
    sandbox's matches are the engine's, made where the automaton says one can start, so there the two agree."""
    p, args = prepare(c)
    if p is None or not isinstance(found, dict) or not isinstance(found.get("finditer"), list):
        return None
    end = args[2] if len(args) > 2 else len(c["text"])
    return [attempt(lambda: describe(p.scanner(c["text"], m[0][0], end).match())) for m in found["finditer"]]

def bounded(c):
    # A pattern CPython backtracks on for ever is left out (the sandbox's answer has nothing to be compared with).
    if signal is None:
        return run(c)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        return run(c)
    except Expired:
        return "cpython timed out"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)

results = [bounded(c) for c in CASES]
'''


def sandbox_results(cases: list[dict]) -> list:
    """Each case's results in the sandbox; a batch the sandbox cannot finish (a case that stalls or exhausts the
    session) is split until the case is found, and that case's result is the error."""
    from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError

    try:
        return sandbox_batch(cases)
    except (CodeExecutionError, CodeInterpreterError) as error:
        if len(cases) == 1:
            failed = ["sandbox failed", str(error).split(":")[0]]
            return [[failed, failed, None]]
        half = len(cases) // 2
        return sandbox_results(cases[:half]) + sandbox_results(cases[half:])


def sandbox_batch(cases: list[dict]) -> list:
    from dspy_rust_interpreter import RustInterpreter

    # A batch takes well under a second; a case that runs for 20 is split out and reported.
    with RustInterpreter(timeout=20) as interpreter:
        interpreter.execute(f"import json\nCASES = json.loads({json.dumps(json.dumps(cases))})")
        interpreter.execute(
            "signal = None\n" + RUNNER + "\nengine = [engine_run(c) for c in CASES]"
            "\nanchored = [anchored_run(c, r) for c, r in zip(CASES, results)]"
        )
        return json.loads(interpreter.execute("print(json.dumps(list(zip(results, engine, anchored))))").strip())


def cpython_results(cases: list[dict]) -> list:
    program = (
        "import json, sys, signal\n"
        # Not an Exception: `attempt` must not swallow it and go on to the next method.
        "class Expired(BaseException):\n    pass\n"
        "def _expired(*_):\n    raise Expired\n"
        "signal.signal(signal.SIGALRM, _expired)\n"
        f"CASES = json.loads({json.dumps(json.dumps(cases))})\n" + RUNNER + "\nsys.stdout.write(json.dumps(results))\n"
    )
    # The program on stdin: a batch with long subjects is past the limit of one command-line argument.
    done = subprocess.run(
        [reference_python(), "-"],
        input=program,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PYTHONIOENCODING="utf-8"),
    )
    if done.returncode:
        raise RuntimeError(f"CPython failed on the batch: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def lazy_loop_of_nothing(source: str, flags: list[str]) -> bool:
    """Whether the pattern has a lazy repeat (`*?`, `+?`, `{m,n}?`) of a group that can match the empty string.

    RustPython's engine loops for ever on some of those once the tail fails (its zero-width protection is
    not undone on backtracking, where CPython's is), until the session's memory limit stops it.
    """
    import re
    import re._compiler as compiler
    import re._parser as parser

    flag_value = 0
    for name in flags:
        flag_value |= getattr(re, name)

    def walk(items) -> bool:
        for op, av in items:
            if op is parser.MIN_REPEAT and av[2].getwidth()[0] == 0 and not compiler._simple(av[2]):
                return True
            for value in av if isinstance(av, (tuple, list)) else [av]:
                if isinstance(value, parser.SubPattern) and walk(value):
                    return True
                if isinstance(value, list) and any(isinstance(v, parser.SubPattern) and walk(v) for v in value):
                    return True
        return False

    try:
        return walk(parser.parse(source, flag_value))
    except Exception:
        return False


def known(c: dict, ours, theirs) -> str | None:
    """Why a difference is not a finding, if it is a known one (docs/fidelity.md lists each)."""
    if lazy_loop_of_nothing(c["pattern"], c["flags"]):
        return "RustPython's engine: a lazy repeat of a group that can match empty may loop until the memory limit"
    if not isinstance(ours, dict) or not isinstance(theirs, dict):
        return None
    length = len(c["text"])
    pos = min(max(c["pos"], 0), length)
    end = length if c["endpos"] is None else min(max(c["endpos"], 0), length)
    differ = {k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k)}
    if pos > end and differ <= {"match", "fullmatch"}:
        return "RustPython's match/fullmatch start at endpos when pos is past it; CPython starts at pos"
    if end == 0 and "\\B" in c["pattern"]:
        return "the sandbox is 3.14, where \\B matches an empty string; the reference CPython may be older"
    return None


def captures_alone_differ(fast, reference, anchored) -> bool:
    """Whether the sandbox finds CPython's matches (the same spans searched, iterated and replaced over the whole
    text) and differs only in what groups captured there: each match is `_sre`'s, made at the start the
    automaton names, so its captures are the engine's own there (the iterated ones are checked against the
    engine anchored at each start). RustPython's engine captures another iteration of a counted repeat of a
    group holding a lazy repeat (docs/fidelity.md), and its own search may find other matches, so the whole
    results of the engine alone are no witness."""
    if not (isinstance(fast, dict) and isinstance(reference, dict) and isinstance(anchored, list)):
        return False
    iterated, expected = fast.get("finditer"), reference.get("finditer")
    if not (isinstance(iterated, list) and isinstance(expected, list)) or iterated != anchored:
        return False

    def span(found):
        return found[0] if isinstance(found, list) and found and found[0] != "error" else found

    if [span(m) for m in iterated] != [span(m) for m in expected]:
        return False
    if any(span(fast.get(key)) != span(reference.get(key)) for key in ("search", "match", "fullmatch")):
        return False
    return all(fast.get(key) == reference.get(key) for key in ("sub", "subn", "sub_call"))


def judge(c: dict, fast, engine, reference, anchored=None) -> str:
    """`"same"` when the sandbox gives CPython's results; otherwise `"ours"` when they also differ from RustPython's
    engine's alone (the automaton's doing: a finding), `"engine"` when the engine alone gives the same (its
    own difference), or `"skipped"` when CPython ran out of time."""
    verdict = judged(c, fast, engine, reference)
    if verdict == "ours" and captures_alone_differ(fast, reference, anchored):
        return "engine"
    return verdict


def judged(c: dict, fast, engine, reference) -> str:
    if reference == "cpython timed out":
        return "skipped"
    if fast == reference or known(c, fast, reference):
        # CPython's answer (where RustPython's engine alone may not give it: its scanner finds nothing when
        # `pos` is past `endpos`, for one).
        return "same"
    # Whether the engine alone has a full match to compare (see `engine_run`).
    engine_fullmatch = isinstance(engine, dict) and "fullmatch" in engine
    if isinstance(fast, dict) and isinstance(engine, dict):
        compared = fast if engine_fullmatch else {k: v for k, v in fast.items() if k != "fullmatch"}
        if compared != engine and not known(c, compared, engine):
            return "ours"
    elif fast != engine and not known(c, fast, engine):
        return "ours"
    if isinstance(fast, dict) and isinstance(reference, dict) and not engine_fullmatch:
        # `fullmatch` has no engine-alone form: the automaton only ever answers "no full match", so a
        # missing full match that CPython finds is counted against the automaton.
        if fast.get("fullmatch") is None and reference.get("fullmatch") is not None:
            return "ours"
    return "engine"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--batch", type=int, default=300)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "1")))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.seconds
    findings, engine_differences, compared, batches, skipped = [], [], 0, 0, 0
    while time.monotonic() < deadline and len(findings) < 20:
        cases = [case(rng) for _ in range(args.batch)]
        ours, theirs = sandbox_results(cases), cpython_results(cases)
        for c, (fast, engine, anchored), reference in zip(cases, ours, theirs):
            verdict = judge(c, fast, engine, reference, anchored)
            if verdict == "skipped":
                skipped += 1
            elif verdict == "ours":
                findings.append({"case": c, "sandbox": fast, "engine alone": engine, "cpython": reference})
            elif verdict == "engine":
                engine_differences.append({"case": c, "sandbox": fast, "cpython": reference})
        compared += len(cases)
        batches += 1
    print(
        f"regex fuzz: {compared} cases in {batches} batches (seed {args.seed}), {len(findings)} differences "
        f"from RustPython's own engine; {len(engine_differences)} where the engine itself differs from CPython "
        f"(not the automaton's doing: listed, not failed); {skipped} left out because CPython's re took over 2 s"
    )
    if engine_differences:
        out = HERE / "findings" / f"regex-engine-{args.seed}-{int(time.time())}.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(engine_differences[:200], indent=1, ensure_ascii=False))
        print(f"the engine's own differences: {out}")
    if findings:
        out = HERE / "findings" / f"regex-{args.seed}-{int(time.time())}.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(findings, indent=1, ensure_ascii=False))
        for finding in findings[:5]:
            print(json.dumps(finding, ensure_ascii=False)[:1500])
        print(f"all differences: {out}")
        sys.exit(1)


if __name__ == "__main__":
    main()
