"""A fixed sequence of ASCII characters and classes (`INC-\\d{5}`, `\\d{4}-\\d{2}-\\d{2}`, with groups anywhere in it)
is searched by a table lookup per byte at each candidate, and its groups are set at their fixed offsets
(src/sandbox/library/re/fixed.rs; `regex-automata` was asked for an anchored match, and again for the groups,
at each literal it found). Every result must be CPython's: a literal prefix that occurs without a match after it,
overlapping candidates (`aab` in `aaab`), classes that are ASCII on an ASCII subject only (`\\d`, `\\w`,
case-insensitive letters) and subjects with other digits and wide characters, nested and named groups,
`pos`/`endpos`, `match`/`fullmatch` at a position, every method; and patterns just past the rule (an optional
part, a varying repeat, a group repeated) give the same results the other way."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython
from tests.sandbox.library.re.regex_results import SHOWING

PROGRAM = (
    SHOWING
    + r"""
import random, re
rng = random.Random(50)
patterns = [r'INC-\d{5}', r'\d{4}-\d{2}-\d{2}', r'(\d{2}):(\d{2})', r'INC-(?P<id>(\d{2})\d{3})', r'aab', r'a[ab]b',
            r'[A-Z]{3}-\d', r'(?i)inc-\d{2}', r'(?i:k)\d', r'\w\d', r'(?a)\w\d', r'--', r'[ -]\d{3}', r'(a)(b)', r'ab',
            r'x\.y', r'[^a-z ]{2}', r'\s\d']
# Just past the rule: an optional part, a varying repeat, a repeated group, an alternative, a look.
patterns += [r'INC-\d{5}x?', r'INC-\d{4,5}', r'(?:ab){2}', r'ab|ac', r'\bINC-\d{2}', r'(a)(x)?b']
alphabet = list('aabbxINC-0123456789 :.yzkK\u212a\u0663é\n')
subjects = [''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(20)]
subjects += ['INC-1234 INC-12345 xINC-000001 INC-INC-123456', '2026-11-29 12:30:45 and 1999-1-22', 'aaab aab abab',
             'AB-1 aB-2 ab-x INC-42 inc-77', 'x.y xzy x.yx.y', '12:3 12:34:56 1:22:333 ٣٣:٣٣']
subjects += [s * 40 for s in subjects[-6:]]
show_methods(patterns, subjects)
"""
)


def test_fixed_search_results_are_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)
