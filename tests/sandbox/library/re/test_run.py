"""A repeat of one class of ASCII characters (`\\s+`, `\\w+`, `[,;]+?`, `-{2,3}`; `\\b\\w+\\b` on an ASCII subject) is
searched by a table lookup per byte (src/sandbox/library/re/run.rs; `meta::Regex::search` scanned forward to
each match's end and back to its start). Every result must be CPython's: greedy, lazy and counted repeats, runs
shorter than the count, classes that are ASCII on an ASCII subject only (`\\s`, `\\d`, `[^a-z]`, case-insensitive
letters), subjects with other whitespace and digits (`\\u3000`, `\\x1c`, Arabic-Indic digits) and wide characters,
`pos`/`endpos`, `match` at a position, every method; word boundaries around a run, with the text before `pos` in
view; and patterns just past the rule (a group, `*`, a bounded or lazy repeat between boundaries) give the same
results the other way."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython
from tests.sandbox.library.re.regex_results import SHOWING

PROGRAM = (
    SHOWING
    + r"""
import random, re
rng = random.Random(49)
classes = [r'\s', r'\w', r'\d', r'[,;]', '-', 'x', r'[a-c]', r'[^a-z ]', r'[0-9]', r'(?a:\w)', r'(?i:[k-m])', r'\S', '[ \t]']
counts = ['+', '+?', '{2,}', '{2,3}', '{2,3}?', '{2}', '{1,1}', '*', '?']
patterns = [c + n for c in classes for n in counts] + [r'(\s+)', r'(?:\d)+', r'\s+$']
# Word boundaries around a run of word characters; then a bounded, a lazy repeat and a class with a space.
patterns += [r'\b\w+\b', r'\b[a-z]+\b', r'\b\d+', r'\w+\b', r'\b\w{3,}\b', r'(?a)\b[A-Za-z_]+\b',
             r'\b[0-9]{1,3}\b', r'\b\w+?\b', r'\b[a-z ]+\b']
alphabet = list('abcxyzklmK-,; \t\n0123456789_é\u3000\x1c\u0663\u212a')
subjects = [''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(20)]
subjects += ['a  b\t\tc   d', '1 12 123 1234 12345', 'x,;y;;,z', '-- --- ----a', 'plain ascii words, and 42 numbers',
             'ab1 12 a_b 3x x3 _9_ 45, ok. abc123 456def 7890']
subjects += [s * 80 for s in subjects[-6:]]
show_methods(patterns, subjects)
"""
)


def test_run_search_results_are_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(max_output_chars=10_000_000), PROGRAM)
