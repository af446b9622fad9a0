"""`re.Match` is our own type (src/sandbox/library/re/matched.rs), made from the engine state a search
left; the searches RustPython still runs (bytes, patterns the automaton cannot read) have their `Match`
converted. Every attribute and method must be CPython's, for every way a `Match` is made."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
import copy, pickle, re, typing
patterns = [r'(?P<ts>\S+) (?P<level>[A-Z]+) (?P<id>INC-\d{5})', r'(a)|(b)', r'((a)b)', r'(?P<n>(a)b)?c',
            r'(?:(a)|b)*', r'(\d*)', r'(?<=a)(b)', r'(a)(?=b)', r'(?P<x>a)(?P=x)', r'(?i)(caf\u00e9)', r'x*',
            r'(?m)^(\w+)$', r'((?:a|ab)(c|bcd))(d*)', r'(?P<first>\w+)\s(?P<second>\w+)?']
subjects = ['', 'a', 'ab', 'abc', 'aab', 'ba', 'c', 'abcd', 'aa', 'CAF\u00c9 caf\u00e9', 'one\ntwo\n',
            '2026-11-01T00:00:00 WARN INC-37905 user=alice', 'x' * 80, 'hello world', 'single ']
def describe(m):
    if m is None:
        return 'None'
    n = len(m.regs)
    out = [repr(m), m.group(), m.groups(), m.groups('-'), m.groupdict(), m.groupdict(0), m.lastindex,
           m.lastgroup, m.regs, m.pos, m.endpos, m.span(), m.start(), m.end(), m[0],
           [m.span(i) for i in range(n)], [m.group(i) for i in range(n)], m.group(*range(n)),
           type(m) is re.Match, isinstance(m, re.Match), m.re.pattern, m.string is not None, bool(m)]
    for name in m.re.groupindex:
        out.append((name, m[name], m.group(name), m.span(name), m.start(name), m.end(name)))
    for bad in (n, -1, 'nope', 1.5, [0], None):
        try:
            out.append(m.group(bad))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out
for pattern in patterns:
    compiled = re.compile(pattern)
    for subject in subjects:
        print(repr(pattern), repr(subject))
        print('  search', describe(compiled.search(subject)))
        print('  match', describe(compiled.match(subject)))
        print('  fullmatch', describe(compiled.fullmatch(subject)))
        print('  pos', describe(compiled.search(subject, 1)), describe(compiled.match(subject, 1, 3)))
        # (`pos` past `endpos` is RustPython's engine's own answer: docs/fidelity.md.)
        print('  clamped', describe(compiled.search(subject, -4, 99)), describe(compiled.match(subject, 2, 2)))
        print('  finditer', [describe(m) for m in compiled.finditer(subject)])
        print('  finditer pos', [describe(m) for m in compiled.finditer(subject, 1, 4)])
        print('  sub', compiled.sub(lambda m: repr((m.span(), m.pos, m.endpos, m.groups(), type(m) is re.Match)), subject))
        print('  subn', compiled.subn(lambda m: m.group().upper(), subject, 2))
        print('  module', describe(re.search(pattern, subject)), describe(re.match(pattern, subject)))
for pattern, subject in [(rb'(a)(b)?', b'xab'), (rb'(?P<n>\d+)', bytearray(b'a12')), (rb'x*', b'')]:
    compiled = re.compile(pattern)
    print(repr(pattern), repr(subject), describe(compiled.search(subject)), [describe(m) for m in compiled.finditer(subject)])
    print(compiled.sub(lambda m: repr((m.span(), m.pos, m.endpos, type(m) is re.Match)).encode(), subject))
m = re.search(r'(?P<word>\w+) (\w+)?', 'hello world')
print(m.expand(r'\g<word>!\2'), m.expand(rb'x'.decode()), re.search(r'(a)|b', 'b').expand(r'[\1]'))
for bad in [r'\g<nope>', r'\9']:
    try:
        m.expand(bad)
    except (IndexError, re.error) as e:
        print(isinstance(e, re.error), e)
print(copy.copy(m) is m, copy.deepcopy(m) is m, re.Match[str], typing.Match.__origin__ is re.Match)
for call in [lambda: pickle.dumps(m), lambda: m.group(g=1), lambda: re.Match(), lambda: m.span(0, 1),
             lambda: m.groups(1, 2), lambda: m.start(g=0), lambda: m.groupdict(x=1),
             lambda: m.groups(1, default=2), lambda: m.end(0, 1), lambda: m.groups(default='-')]:
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)
print(re.search('a', 'a' * 200))
print(re.search('(\u00e9+)', 'x' + '\u00e9' * 60))
print(re.match(r'(\w+)', '\ud800ab' if False else 'ab\u00e9'))
class S(str):
    pass
m = re.search('.*', S('sub'))
print(type(m.group()), m.group(), type(m.string))
"""


def test_match_objects_are_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)


def test_the_match_type_is_one_type(make_interp):
    # Every way of making a match gives the one type `re.Match` names, including RustPython's own searches.
    interp = make_interp()
    out = interp.execute(
        "import re\n"
        "kinds = {type(re.search('a', 'a')), type(re.search(b'a', b'a')), type(re.search(r'(a)\\1', 'aa')),\n"
        "         type(next(re.finditer('a', 'a'))), type(next(re.finditer(b'a', b'a'))), type(re.fullmatch('a', 'a'))}\n"
        "seen = []\n"
        "re.sub(b'a', lambda m: seen.append(type(m)) or b'', b'a')\n"
        "re.sub(r'(a)\\1', lambda m: seen.append(type(m)) or '', 'aa')\n"
        "print(kinds | set(seen) == {re.Match})"
    )
    assert out.strip() == "True"
