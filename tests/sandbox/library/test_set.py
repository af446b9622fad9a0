"""`set(words)`, `frozenset(words)`, `set.update(words)` and `Counter(words)` over a list or tuple of exact strs
are told apart by text natively (src/sandbox/library/set.rs). What they make must be what the
element-by-element loop makes: CPython's contents and counts, the first object of each text kept, the same
order of insertion as RustPython's own loop (a set iterates in insertion order there); anything else (a str
subclass with its own `__eq__`, a non-str element, an iterator, a Counter value that is not an int) keeps the
loop's behaviour."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
from collections import Counter
import random
rng = random.Random(30)
alphabet = ['a', 'b', 'ab', '', ' ', 'caf\u00e9', 'cafe\u0301', '\U0001f600', 'A', 'aa', 'x' * 40]
words = [rng.choice(alphabet) + rng.choice(alphabet) for _ in range(5000)]

def show(label, made):
    print(label, type(made).__name__, len(made), sorted(made))

show('set', set(words))
show('set of a tuple', set(tuple(words)))
show('frozenset', frozenset(words))
show('empty', set([]))
s = {'kept', 'zz'}
s.update(words)
show('update', s)
s = {'old'}
s.__init__(words)
show('init again', s)

# The first object of each text is the one kept.
first, second = ''.join(['sp', 'am']), ''.join(['sp', 'am'])
print('distinct objects', first is not second)
for made in (set([first, second]), frozenset([first, second]), set((first, second))):
    print('first kept', next(iter(made)) is first)
c = Counter([first, second])
print('counter key', next(iter(c)) is first, c)

# Counts, and the order keys first appear (a dict's order is CPython's too).
c = Counter(words)
print(list(c.items())[:40])
print(c.most_common(8))
c.update(words)
c.update(tuple(words[:100]))
print(list(c.items())[:20])
# Values a count of one at a time would treat differently.
c = Counter()
c['a'] = 0.5
c['b'] = True
c['ab'] = -3
class Tally:
    def __init__(self, n): self.n = n
    def __add__(self, other):
        print('add', self.n, other)
        return Tally(self.n + other)
    def __repr__(self): return f'Tally({self.n})'
c['aa'] = Tally(0)
c.update(['a', 'b', 'a', 'aa', 'ab', 'aa', 'new'])
print(c)

# A str subclass with its own equality is not a str the native path may judge.
class Folded(str):
    def __hash__(self): return hash(self.lower())
    def __eq__(self, other): return self.lower() == str(other).lower()
mixed = ['Ab', Folded('aB'), 'ab', Folded('AB')]
print(sorted(map(repr, set(mixed))), sorted(map(repr, frozenset(mixed))), Counter(mixed))
print(sorted(map(repr, set(['a', 1, 'a', 2.0, 'b', 1]))), Counter(['a', 1, 'a']))
print(sorted(set(iter(words))) == sorted(set(words)), sorted(set(w for w in words)) == sorted(set(words)))
# Subclasses: one that keeps set's __init__, one with its own.
class Tags(set):
    pass
class Logged(set):
    def __init__(self, items):
        print('own init', len(items))
        super().__init__(items)
show('subclass', Tags(words))
show('own init', Logged(words))
print(type(Tags(words)).__name__, type(frozenset(words)).__name__)
# Errors in CPython's words.
for call in (lambda: set(words, words), lambda: set(iterable=words), lambda: frozenset(words, 1),
             lambda: frozenset(iterable=words), lambda: s.update(words, 5)):
    try:
        call()
    except TypeError as e:
        print('TypeError', e)
"""


def test_distinct_strs_make_what_cpython_makes(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)


def test_a_set_of_strs_is_made_in_the_order_the_loop_makes_it(make_interp):
    # In RustPython a set iterates in the order of insertion: the native path inserts the first occurrence of
    # each text in the order the element-by-element loop (an iterator is never taken natively) would.
    interp = make_interp()
    out = interp.execute(
        "import random\nrng = random.Random(7)\n"
        "words = [rng.choice('abcdefghij') * rng.randrange(1, 4) for _ in range(20000)]\n"
        "print(list(set(words)) == list(set(iter(words))), list(frozenset(words)) == list(frozenset(iter(words))))\n"
        "s = {'x'}\ns.update(words)\nt = {'x'}\nt.update(iter(words))\nprint(list(s) == list(t))"
    )
    assert out == "True True\nTrue\n"


ORDER = r"""
from collections import Counter
# A count that is not an exact int: its __add__ runs once per element, in the elements' order.
log = []
class V(int):
    def __add__(self, other):
        log.append(int(self))
        c.pop('b', None)
        return V(int(self) + other)
c = Counter({'a': V(0)})
c.update(['a', 'b', 'a', 'b'])
print(dict(c), log)
class W:
    def __init__(self, name): self.name = name
    def __add__(self, other):
        log.append(self.name)
        return self
log.clear()
Counter({'a': W('a'), 'b': W('b')}).update(['a', 'b', 'a'])
print(log)
# A key whose hash is a str's and whose __eq__ counts: asked as often as the loop asks it.
asked = []
class Same:
    def __hash__(self): return hash('a')
    def __eq__(self, other):
        asked.append(other)
        return other == 'a'
c = Counter({Same(): 1})
c.update(['a'] * 3)
print(len(asked), sorted(map(repr, c.values())))
asked.clear()
s = {Same()}
s.update(['a'] * 3)
print(len(asked), len(s))
c = Counter({'x': 1.5})
c.update(['x', 'x', 'y'])
print(c)
"""


def test_counts_that_user_code_can_see_keep_the_loops_order(make_interp):
    assert_prints_as_cpython(make_interp(), ORDER)


def test_a_long_str_repeated_costs_its_length_once(make_interp):
    # One 1 MB str 200,000 times: CPython hashes it once (cached) and finds it by identity; so must the native
    # tally, or each element costs its whole length (about 6 s here, past the time limit).
    interp = make_interp(timeout=3)
    out = interp.execute(
        "from collections import Counter\ns = 'x' * 1_000_000\nL = [s] * 200_000\nu = set()\nu.update(L)\n"
        "print(len(set(L)), len(frozenset(tuple(L))), Counter(L)[s], len(u))"
    )
    assert out == "1 1 200000 1\n"


def test_updating_a_large_counter_or_set_a_few_words_at_a_time_stays_linear(make_interp):
    # The native path checks the dict or set it adds to only when it is no larger than the items: per-line
    # updates of a growing Counter or set (50,000 entries, 50,000 small updates) must not scan it each time.
    interp = make_interp(timeout=5)
    out = interp.execute(
        "from collections import Counter\nc = Counter({f'k{i}': 1 for i in range(50_000)})\n"
        "s = set(c)\nfor i in range(50_000):\n    c.update(['a', 'b'])\n    s.update(['a', 'b'])\n"
        "print(c['a'], len(c), len(s))"
    )
    assert out == "50000 50002 50002\n"
