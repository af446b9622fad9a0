"""`Pattern.finditer` returns an iterator of our own where the automaton searches
(src/sandbox/library/re/matches.rs): a type named as CPython's `callable_iterator`, whose `__next__` is the
search itself. It must iterate as CPython's does: matches in order, empty matches and the step after them,
`pos`/`endpos`, exhaustion that stays exhausted, two iterators of one pattern interleaved, other searches of
the pattern between steps, the type's name and repr, and no way to make one but `finditer`."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
import collections.abc, re
def spans(it):
    return [m.span() for m in it]
pattern = re.compile(r'a|(?=b)|x*')
for subject in ['', 'aab b', 'xxaxbx', 'b' * 5, 'caf\u00e9 ab']:
    print(repr(subject), spans(pattern.finditer(subject)), spans(pattern.finditer(subject, 1, 4)),
          spans(re.finditer(r'(?m)^\w+', subject + '\nab\n')), spans(re.finditer(r'\s+', subject)))
it = re.finditer(r'\d+', 'a1 b22 c333')
print(type(it).__name__, repr(it).split(' object at ')[0], iter(it) is it, isinstance(it, collections.abc.Iterator))
print(next(it).group(), [m.group() for m in it], next(it, 'done'), next(it, 'done'), list(it))
first, second = re.finditer(r'\w', 'abc'), re.finditer(r'\w', 'abc')
print([(a.group(), b.group()) for a, b in zip(first, second)])
words = re.compile(r'\w+')
it = words.finditer('one two three')
print(next(it).group(), words.search('zz top').group(), words.findall('x y'), next(it).group(), next(it).span())
try:
    type(re.finditer('a', 'a'))()
except TypeError as e:
    print('TypeError', e)
"""


def test_finditer_iterates_as_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)
