"""The fuzz harness must report what it exists to find: a host process that dies, and one that hangs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parent.parent / "fuzz" / "fuzz_interpreter.py"


@pytest.mark.parametrize("fault, expected", [("crash", "crash (exit code"), ("hang", "hang (no result after")])
def test_harness_reports_a_dying_or_hanging_child(fault, expected):
    env = {**os.environ, "FUZZ_SELF_TEST": fault, "FUZZ_HANG_SLACK": "1"}
    process = subprocess.run(
        [sys.executable, str(HARNESS), "--seconds", "8", "--seed", "99"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert process.returncode == 1, process.stdout + process.stderr
    assert f"FINDING: {expected}" in process.stdout


def test_callback_fuzzer_reports_a_session_process_that_dies():
    harness = HARNESS.parent / "fuzz_callbacks.py"
    env = {**os.environ, "FUZZ_SELF_TEST": "crash"}
    process = subprocess.run(
        [sys.executable, str(harness), "--seconds", "4", "--seed", "99"], capture_output=True, text=True, env=env, timeout=120
    )
    assert process.returncode == 1, process.stdout + process.stderr
    assert "FINDING: SystemError: the sandbox's process crashed" in process.stdout, process.stdout


def test_regex_judge_tells_the_engines_captures_from_the_automatons_doing():
    # From the first hour-long campaign (seed 41): the sandbox's matches have CPython's spans, but a counted
    # group holding a lazy repeat captured another iteration, as RustPython's engine does anchored there. Its
    # own search finds a match at 18 that CPython does not, so the whole results of the engine alone differ.
    import importlib
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))
    fuzz_regex = importlib.import_module("fuzz_regex")
    case = {
        "pattern": r"((?:\.[\w-]|(?:(?:a)+| +?)A+?\b( (?:a)(?:a)(?:a)){0,2})+?){2}",
        "flags": ["I"],
        "text": "A9aa.9AbxA1.a99bb_Aa axxyay ",
        "pos": 3,
        "endpos": 33,
    }
    [(fast, engine, anchored)] = fuzz_regex.sandbox_results([case])
    [reference] = fuzz_regex.cpython_results([case])
    # The exact automaton's captures give the sandbox CPython's groups here: the same results.
    assert fast["sub"] == reference["sub"] == "A9<aa.9>AbxA1.a99bb_Aa axxyay "
    assert fast == reference
    assert fuzz_regex.judge(case, fast, engine, reference, anchored) == "same"
    # The capture the engine made anchored there (group 1 another iteration), as the sandbox reported it then:
    # the same matches, other captures, which the engine alone gives too.
    engine_captures = dict(fast, sub_group="A9[aa.9]AbxA1.a99bb_Aa axxyay ")
    assert reference["sub_group"] == "A9[.9]AbxA1.a99bb_Aa axxyay "
    assert fuzz_regex.judged(case, engine_captures, engine, reference) == "ours"
    assert fuzz_regex.judge(case, engine_captures, engine, reference, anchored) == "engine"
    # Matches in other places than CPython's stay the automaton's doing, whatever the engine says there.
    moved = dict(engine_captures, sub="A9a<a.9>AbxA1.a99bb_Aa axxyay ")
    assert fuzz_regex.judge(case, moved, engine, reference, anchored) == "ours"


def test_regex_judge_asks_the_engine_alone_for_its_full_match():
    # From a fuzz campaign (seed 48): RustPython's engine finds no full match for a counted group holding a
    # possessive repeat where CPython finds one; the sandbox gives the engine's answer. The engine alone now has a
    # `fullmatch` (a scanner's `match` of the pattern followed by `\Z`), so this is the engine's, not the
    # automaton's, and a full match the engine alone finds but the sandbox misses stays the automaton's.
    import importlib
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))
    fuzz_regex = importlib.import_module("fuzz_regex")
    case = {"pattern": r"(?:\W+?[k]*+|[^ ]\S[^ ]*){1,3}", "flags": ["S", "A"], "text": " ..z ", "pos": -2, "endpos": None}
    [(fast, engine, anchored)] = fuzz_regex.sandbox_results([case])
    [reference] = fuzz_regex.cpython_results([case])
    assert reference["fullmatch"] is not None and fast["fullmatch"] is None
    assert "fullmatch" in engine and engine["fullmatch"] is None
    assert fuzz_regex.judge(case, fast, engine, reference, anchored) == "engine"
    found_by_engine = dict(engine, fullmatch=reference["fullmatch"])
    assert fuzz_regex.judge(case, fast, found_by_engine, reference, anchored) == "ours"
    # With `endpos` before the end the engine alone has no full match to ask (at or past the end it has: the seed-49
    # case, `endpos` 14 in a text of 9), and a missing full match is counted against the automaton.
    assert "fullmatch" in fuzz_regex.sandbox_results([dict(case, endpos=5)])[0][1]
    assert "fullmatch" not in fuzz_regex.sandbox_results([dict(case, endpos=4)])[0][1]
    without = {key: value for key, value in engine.items() if key != "fullmatch"}
    assert fuzz_regex.judge(case, fast, without, reference, anchored) == "ours"
