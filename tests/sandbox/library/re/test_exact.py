"""A pattern whose every part has an exact reading and that cannot match empty is matched by an automaton with
`_sre`'s own matches and captures (src/sandbox/library/re/translate.rs, the exact reading): every method
takes the spans of the match and of its groups from it, without running the engine, and `lastindex` is asked
of the engine only where more than one group took part. Every result must be CPython's: greedy and lazy
repeats, the order of alternatives, groups in repeats and alternatives, case-insensitive and Unicode classes,
anchors with and without `re.M`, `\\b` on ASCII subjects, `pos`/`endpos`; patterns the exact reading refuses
(lookarounds, `$` without `re.M`, possessive repeats, atomic groups, loops whose body can match empty, `\\b` on
a non-ASCII subject) must give the same results through the engine."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython
from tests.sandbox.library.re.regex_results import SHOWING

PROGRAM = (
    SHOWING
    + r"""
import re
patterns = [r'INC-\d{5}', r'\s+', r'a+?b', r'a+b', r'a|ab', r'ab|a', r'(?:a|ab)(?:c|bcd)', r'x*y', r'[a-c]+?c',
            r'\w+ing\b', r'\bis\b', r'^\w+', r'\w+$', r'^ab', r'b$', r'\d{2,4}?', r'\d{2,4}', r'(?:ab){2,}',
            r'(?:ab){1,2}?b', r'.+?,', r'[^,]+', r'caf\u00e9', r'(?i)CAF\u00c9', r'(?i)stra\u00dfe', r'(?i)k+',
            r'\u212a', r'(?i)[a-z]+', r'(?a)\w+', r'\W+', r'(?s).{3}', r'.{3}', r'\Aab', r'ab\Z', r'(?m)^\w',
            r'(?m)\w$', r'(?:a*)+b', r'(?:a?)*?b', r'a++b', r'(?>a+)b', r'a(?=b)', r'(?<!x)ab', r'[\d\s]+',
            r'\S+@\S+', r'\d+(?:\.\d+)?', r'[A-Z][a-z]*', r'(?x) a \ b  # comment', r'(a+)(b)?',
            r'(?P<w>\w+)@(\w+)', r'((?:ab)+)(c|bcd)?', r'(\d+)(?:\.(\d+))?', r'(?i)(k)(\w*)', r'(?:(a)|(b))+',
            r'((a)|b)+c?', r'(a|ab)(c|bcd)(d*)', r'(?m)^(\w+) (\w+)$', r'(a)(?=b)']
subjects = ['', 'ab', 'aab abab ab', 'abcd abc aaabbb', 'the king is singing is thing', 'x y\tz\n\nw  ',
            'INC-12345 INC-123 INC-123456 xINC-00000', 'a,b,,c,d e', 'caf\u00e9 CAF\u00c9 cafe\u0301',
            'STRASSE stra\u00dfe Stra\u00dfe', 'k K \u212a kk', '12 1234 123456 3.14 10.', 'line one\nline two\n',
            'abab\nab\nba\nab', '\u00e9t\u00e9 is \u00e9t\u00e9', 'a@b.c x@y', 'AbcDef Ghi']
# Each subject as it is, and repeated past 1,024 characters (long subjects take other paths: `SharedStrs`).
subjects = subjects + [s * (1 + 1100 // len(s)) for s in subjects if s]
for pattern in patterns:
    compiled = re.compile(pattern)
    for subject in subjects:
        n = len(subject)
        print(repr(pattern), repr(subject),
              show('findall', lambda: compiled.findall(subject)),
              show('from', lambda: compiled.findall(subject, 2, max(n - 1, 0))),
              show('split', lambda: compiled.split(subject)),
              show('split2', lambda: compiled.split(subject, 2)),
              show('sub', lambda: compiled.sub('<>', subject)),
              show('template', lambda: compiled.sub(r'[\g<0>]', subject)),
              show('subn', lambda: compiled.subn('_', subject, 2)),
              show('module', lambda: re.findall(pattern, subject, re.M)),
              show('search', lambda: matched(compiled.search(subject, 1))),
              show('match', lambda: matched(compiled.match(subject))),
              show('finditer', lambda: [matched(m) for m in compiled.finditer(subject)]),
              show('callable', lambda: compiled.sub(lambda m: str(m.lastindex), subject)))
"""
)


def test_exact_automaton_results_are_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)


LONG = r"""
import hashlib, random, re
rng = random.Random(33)
vocabulary = ['error', 'Error', 'INC-12345', 'caf\u00e9', 'x1', 'thing', 'sing', '42']
text = ' '.join(rng.choice(vocabulary) for _ in range(30000)) + ' ' + ' '.join(f'id{i}' for i in range(20000))
for pattern in [r'\w+', r'[a-z]+ing\b', r'(\w+)', r'(\w)(\w*)', r'(?i)ERROR', r'\d+', r'id\d+']:
    found = re.findall(pattern, text)
    digest = hashlib.sha256(repr(found).encode()).hexdigest()[:16]
    print(pattern, len(found), digest, found[:4], found[-2:])
"""


def test_findall_over_a_long_subject_is_cpythons(make_interp):
    # A long subject's repeated results are one object each (`SharedStrs`): the values must not change.
    assert_prints_as_cpython(make_interp(), LONG)
