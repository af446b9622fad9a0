"""The edge cases of the sandbox's own `re.Match` (src/sandbox/library/re/matched.rs), each as CPython's answer
or a session that stays up: groups the engine leaves with their start after their end, `lastindex` where the
engine's own match stops elsewhere, `pos`/`endpos` given by `__index__` or crossed, buffers of wide items,
`expand` and its argument errors; many groups kept linear; and Python code (a `__del__`, a weak-reference
callback) run while a table of the regex module is borrowed. Run in child interpreters with the default time
limit."""

from __future__ import annotations

import time

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
import array, re
# A group RustPython's engine leaves with its start after its end: its value is '' (CPython: (1, 1), '').
m = re.search(r'(?:a((?!b)))+', 'aab')
print(repr(m.group(1)), m.groups(), re.sub(r'(?:a((?!b)))+', lambda m: '<' + m[1] + '>', 'aab'))
print(repr(re.search(r'(?:.((?<!a)))*', 'ba').group(1)))
# lastindex where the engine's own match at the start stops elsewhere (a lazy counted repeat).
m = re.search(r'(?P<a>x)(?P<b>\D{1,2}?){0,2}(?P<c>_)', 'xA.-z_')
print(m.groups(), m.lastindex, m.lastgroup)
print(re.search(r'(?:(a){2}){3}?(b)?', 'aaaaaab').lastindex)
# pos/endpos given by __index__, and a buffer of wide items (in bytes).
class I:
    def __index__(self):
        return 1
m = re.compile('a').search('xxaxx', I())
print(m.pos, m.endpos, [(m.pos, m.endpos) for m in re.compile('a').finditer('xaxa', I())])
m = re.search(rb'\x00(\x00)', array.array('i', [256, 2]))
print(m.endpos, m.span())
# A search whose pos is past endpos finds nothing, also where RustPython's own search serves the pattern.
for pattern in [r'(a)\1|x*', r'x*']:
    p = re.compile(pattern)
    print(p.search('abcd', 3, 2), p.findall('abcd', 3, 2), list(p.finditer('abcd', 9, 2)), p.search('ab', 5, 9))
print(re.compile(rb'(a)\1|x*').search(b'abcd', 3, 2))
# expand joins as its template's type.
print(re.search('x', 'x').expand(b'y'), re.search(b'x', b'x').expand(b'[\\g<0>]'))
m = re.search('(a)', 'a')
for call in [lambda: m.expand(), lambda: m.expand('x', 'y'), lambda: m.expand(template='x', extra=2),
             lambda: m.groupdict(default=1, x=2), lambda: m.groups(x=1), lambda: m.expand(y=1)]:
    try:
        call()
    except TypeError as e:
        print(e)
"""


def test_match_edge_cases_are_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)


def test_many_groups_stay_linear_and_quick(make_interp):
    # Captures over the whole subject copied every group's slots at every step: 6.7 s for 20 KB.
    interp = make_interp()
    started = time.monotonic()
    out = interp.execute(
        "import re\n"
        "print(re.compile('(ab)' * 1000).search(('ab' * 999 + 'c') * 10))\n"
        "print(re.compile('(a)' * 2000).search('a' * 2000).span())"
    )
    assert out.split() == ["None", "(0,", "2000)"]
    assert time.monotonic() - started < 30


def test_python_code_run_by_a_drop_inside_the_regex_tables_does_not_crash(make_interp):
    # A `__del__` or weak-reference callback that searches again, run while a table of the regex module is
    # borrowed, crashed the session (each table now drops what leaves it after the borrow).
    interp = make_interp()
    out = interp.execute(
        "import re, weakref\n"
        "class T(str):\n"
        "    def __del__(self):\n"
        "        print(re.compile(r'(a)').sub(r'<\\1>', 'a'))\n"
        "p = re.compile(r'(a)')\n"
        "print(p.sub(T(r'[\\1]'), 'xa'))\n"
        "print(p.sub(r'{\\1}', 'xa'))\n"
        "re.search('(zz)', 'a')\n"
        "w = weakref.ref(re.compile('(zz)'), lambda r: re.search('q', 'q'))\n"
        "for i in range(2000):\n"
        "    re.compile('y%d' % i)\n"
        "re.purge()\n"
        "print('alive')"
    )
    assert out.split()[-1] == "alive"
    assert "x[a]" in out and "x{a}" in out


def test_a_del_during_the_pattern_sweep_does_not_crash(make_interp):
    interp = make_interp()
    out = interp.execute(
        "import _sre, re\n"
        "from re import _compiler, _parser\n"
        "code = [int(x) for x in _compiler._code(_parser.parse('(a)b'), 0)]\n"
        "class D:\n"
        "    def __del__(self):\n"
        "        print(re.search('(q)', 'q'))\n"
        "p = _sre.compile('(a)b', 32, code, 1, {'k': D()}, [None, None])\n"
        "del p\n"
        "for i in range(300):\n"
        "    re.compile('x%d' % i)\n"
        "print('alive')"
    )
    assert out.split()[-1] == "alive"
