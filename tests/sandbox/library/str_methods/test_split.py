"""`str.split(sep=None, maxsplit=-1)` on an ASCII string with no separator or an ASCII one splits by bytes
(src/sandbox/library/str_methods/ascii.rs); every other call is RustPython's. The pieces, the whitespace characters
(CPython's `isspace`, `\x1c`-`\x1f` included), `maxsplit` of every sign, overlapping separators, a one-piece
string returned itself and the argument errors must be CPython's."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
import random
rng = random.Random(31)
pieces = ['a', 'bc', ' ', '  ', '\t', '\n', '\r\n', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x1f', '\x85',
          '\xa0', '\u2028', '\u3000', 'caf\u00e9', '', 'x' * 30, '\x00', '\x7f']
texts = ['', ' ', 'word', ' word ', '\x1c\x1f', 'a\x1fb\x1cc'] + [''.join(rng.choice(pieces) for _ in range(rng.randrange(12))) for _ in range(3000)]
seps = [' ', ',', 'a', 'aa', 'bc', '\t', ' a', '\u00e9', 'x' * 30]
for text in texts:
    print(repr(text), text.split(), text.split(None), text.split(None, 1), text.split(maxsplit=2), text.split(' '))
    sep = rng.choice(seps)
    print(repr(sep), text.split(sep), text.split(sep, rng.randrange(-2, 4)), text.split(maxsplit=0, sep=sep),
          text.split(None, rng.randrange(-1, 3)))
for text, sep in [('aaa', 'aa'), ('aaaa', 'aa'), ('aaaaa', 'aa'), ('abababa', 'aba'), ('a,b,,c,', ','), (',', ','),
                  ('', ','), ('  a  b  ', ' '), ('a b c d', ' ')]:
    print(repr(text), repr(sep), [text.split(sep, most) for most in (-5, -1, 0, 1, 2, 3, 10, 2**62)])
print('a b c'.split(None, True), 'a b c'.split(' ', False))
word = ''.join(['solo', 'word'])
print(word.split()[0] is word, word.split(None)[0] is word, (' ' + word).split()[0] is word,
      word.split(',')[0] is word, word.split('o', 0)[0] is word, word.split(maxsplit=0)[0] is word)
class Sub(str):
    pass
parts = Sub('one').split()
print(type(parts[0]).__name__, parts, Sub('a b').split())
for call in (lambda: 'a b'.split(1), lambda: 'a b'.split(None, 'x'), lambda: 'a b'.split(None, 1, 2),
             lambda: 'a b'.split(sep=None, other=1), lambda: str.split(5), lambda: 'a b'.split(''),
             lambda: 'a b'.split(' ', sep=' '), lambda: 'a b'.split(' ', 1.5), lambda: 'a b'.split(' ', 2**70),
             lambda: 'a b'.split(maxsplit=-2**70), lambda: 'a b'.split(1, 'x'), lambda: 'a b'.split(sep=1, maxsplit='x'),
             lambda: 'a b'.split(maxsplit=1, sep=' ', foo=1)):
    try:
        print(call())
    except (TypeError, ValueError, OverflowError) as e:
        print(type(e).__name__, e)
"""


def test_split_on_whitespace_is_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)


LONG = r"""
import hashlib, random
rng = random.Random(32)
vocabulary = ['INFO', 'ERROR', 'user=erin', 'a', '', 'x' * 50, 'caf']
repeating = ' '.join(rng.choice(vocabulary) for _ in range(40000)) + '\n' + '\t'.join(vocabulary * 300)
unique = ' '.join(f'tok{i}' for i in range(30000)) + ' ' + ' '.join(rng.choice(vocabulary) for _ in range(20000))
for text in (repeating, unique, repeating + unique, unique + repeating):
    for sep in (None, ' ', 'a', '\t', 'tok1'):
        for most in (-1, 3, 20000):
            pieces = text.split(sep, most)
            digest = hashlib.sha256('\x00'.join(pieces).encode()).hexdigest()[:16]
            print(repr(sep), most, len(pieces), digest, [p[:12] for p in pieces[:5]], [len(p) for p in pieces[-3:]],
                  pieces.count('INFO'), pieces.count(''))
"""


def test_a_long_strings_pieces_are_cpythons(make_interp):
    # Long strings share their repeated pieces (`SharedStrs`): the values must not change.
    assert_prints_as_cpython(make_interp(), LONG)
