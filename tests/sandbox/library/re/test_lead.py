"""A pattern every match of begins with one literal, or at a line start, is searched by those places and an
anchored match at each, its groups read in the same pass (src/sandbox/library/re/lead.rs;
`meta::Regex::search` scanned forward to each match's end and back to its start, then again for the groups);
where a match may be long after its literal, or may read past its line, only the first place is tried, and the
search goes on without the lead. Every result must be CPython's: literals that overlap themselves (`aa`, `abab`)
and subjects full of near misses, groups, lazy, counted and unbounded tails, alternatives of different lengths,
`\\b` before the literal and `(?m)^`, line starts with no literal after them and with parts that read newlines
(`\\s+`), empty lines, non-ASCII literals and subjects, `pos`/`endpos`; and patterns just past the rule
(case-insensitive literals, which have several prefixes) give the same results the other way."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython
from tests.sandbox.library.re.regex_results import SHOWING

PROGRAM = (
    SHOWING
    + r"""
import random, re
rng = random.Random(48)
literals = ['ab', 'INC-', 'aa', 'user=', 'é.', 'x-', 'abab', 'kk']
tails = [r'\d{1,5}', r'\w{0,3}', r'(\d{2})', r'(?:a|ab){1,2}', r'(a|b)?c?', r'\b', r'[a-c]{2}', r'(?P<n>\d)\d?',
         r'(?:x|)', r'\s?', r'a{0,2}?b', r'\w+', r'.*?b']
patterns = []
for _ in range(70):
    pattern = rng.choice(literals) + ''.join(rng.choice(tails) for _ in range(rng.randint(0, 3)))
    head = rng.choice(['', '', '', '(?m)^', r'\b', '(?i)'])
    patterns.append(head + pattern)
line_tails = [r'(\w+) (\d+)', r'(?P<a>\S+) [A-Z]+', r'.*?b', r'[a-c]*x?', r'(a|ab)(b)?\b', r'\w+\s+\d', r'(?:(x)|(k+))-?']
for _ in range(30):
    patterns.append('(?m)^' + ''.join(rng.choice(line_tails + tails) for _ in range(rng.randint(1, 3))))
alphabet = list('abINC-0123 \nuser=é.xkK_\n')
subjects = [''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(24)]
subjects += ['aaaaab aab aa', 'abababab abab', 'INC-INC-INC-12345 INC-1', 'user=user=bob user=']
subjects += [s * 60 for s in subjects[:6]]
show_methods(patterns, subjects)
"""
)


def test_led_search_results_are_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)
