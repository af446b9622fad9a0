# sorted() and list.sort() order exact str/int/float keys (and tuples of them) in native code in the sandbox: the
# same order, stability, reverse, calls to key, errors and "list modified during sort" as CPython.
import random

rng = random.Random(11)
words = ["", "a", "b", "ab", "B", "\xff", "\ue000", "\ud800", "\U00010000", "\uffff", "é", "e\u0301"]
for trial in range(400):
    size = rng.choice([0, 1, 2, 3, 7, 40, 300])
    kind = rng.choice(["int", "big", "float", "str", "tuple", "mixed_tuple", "pairs"])
    if kind == "int":
        data = [rng.randint(-5, 5) for _ in range(size)]
    elif kind == "big":
        data = [rng.choice([rng.randint(-5, 5), rng.randint(-10**30, 10**30), 2**63, -2**63, 2**63 - 1]) for _ in range(size)]
    elif kind == "float":
        data = [rng.choice([rng.uniform(-3, 3), 0.0, -0.0, float("inf"), -float("inf"), 1.5]) for _ in range(size)]
    elif kind == "str":
        data = [rng.choice(words) + rng.choice(words) for _ in range(size)]
    elif kind == "tuple":
        data = [tuple(rng.randint(0, 2) for _ in range(rng.randint(0, 3))) for _ in range(size)]
    elif kind == "mixed_tuple":
        data = [(rng.randint(0, 2), rng.choice(words), rng.uniform(0, 1)) for _ in range(size)]
    else:
        data = [(rng.choice(words), i) for i in range(size)]
    reverse = rng.choice([False, True, 0, 1, 7])
    key = rng.choice([None, lambda x: x, lambda x: (x,), lambda x: repr(x)[:2], lambda x: len(repr(x)) % 3, str])
    by_sorted = sorted(data, key=key, reverse=reverse)
    in_place = list(data)
    in_place.sort(key=key, reverse=reverse)
    # Equal keys keep their order (identity shows it for equal-but-distinct elements).
    assert [id(x) for x in by_sorted] == [id(x) for x in in_place], (kind, data)
    print(trial, kind, reverse, by_sorted[:6], in_place[-3:])

# Stability with reverse: equal keys stay in their first order.
pairs = [(i % 3, str(i)) for i in range(12)]
print(sorted(pairs, key=lambda p: p[0], reverse=True))
print(sorted(pairs, key=lambda p: -p[0]), sorted(pairs, reverse=True)[:4])

# key is called once per element, in order; the list looks empty meanwhile.
calls = []
items = [3, 1, 2]
def watching(x):
    calls.append((x, len(items)))
    return -x
items.sort(key=watching)
print(items, calls)
calls.clear()
print(sorted(iter([5, 4, 6]), key=lambda x: calls.append(x) or x), calls)

# A list changed by its key during the sort.
victim = [3, 1, 2]
def grower(x):
    victim.append(x)
    return x
try:
    victim.sort(key=grower)
except ValueError as error:
    print("ValueError:", error, victim)

# A key that raises: the list keeps its order, the error is the key's.
kept = [3, 1, 2]
def failing(x):
    if x == 2:
        raise KeyError(x)
    return x
try:
    kept.sort(key=failing)
except KeyError as error:
    print("KeyError:", error, kept)

# Keys the native order leaves to the comparisons: NaN, bools, subclasses, mixed kinds, objects with __lt__.
nan = float("nan")
print(sorted([3.0, nan, 1.0, 2.0]), sorted([True, 0, False, 2, 1]))
print(sorted([1, 2.5, 0, -1.5, 2]), sorted([(1, "a"), (1.0, "b"), (0.5, "c")]))
class Backwards(str):
    def __lt__(self, other):
        return str.__gt__(self, other)
print(sorted([Backwards("a"), Backwards("c"), Backwards("b")]))
class Shape:
    def __init__(self, n):
        self.n = n
    def __lt__(self, other):
        return self.n < other.n
    def __repr__(self):
        return f"Shape({self.n})"
print(sorted([Shape(3), Shape(1), Shape(2)]), sorted([Shape(3), Shape(1)], key=lambda s: s, reverse=True))
print(sorted({"b": 1, "a": 2}.items()), sorted({"b": 1, "a": 2}.items(), key=lambda kv: (-kv[1], kv[0])))
print(sorted("hello"), sorted(range(5), reverse=True), sorted(()), sorted([], key=42))
for bad in ([1, "a"], [(1, 2), ("a", 2)], [[2], (1,)], [None, None], [object(), object()]):
    try:
        print(sorted(bad))
    except TypeError as error:
        print("TypeError:", error)

# Arguments bound as CPython binds them.
for call in (lambda: sorted(), lambda: sorted([2, 1], None), lambda: sorted([1], cmp=None), lambda: [1].sort(None),
             lambda: [2, 1].sort(reverse=None), lambda: sorted([1, 2], key=42), lambda: sorted(5)):
    try:
        print(call())
    except TypeError as error:
        print("TypeError:", error)
print(sorted([2, 1], key=None, reverse=False), list.sort([2, 1]) is None)

# A list subclass sorts its own elements.
class Tagged(list):
    pass
tagged = Tagged(["b", "a"])
tagged.sort()
print(type(tagged).__name__, tagged)

# Keys left to the comparisons, reversed: CPython reverses, sorts and reverses back, so a failed comparison names
# its operands in that order, and the list is reversed back after it.
for data in ([3, None, 1], [1, "a", 2], [{"s": 1}, {"s": None}, {"s": 3}]):
    for rev in (False, True):
        try:
            print(sorted(data, key=lambda r: r["s"] if isinstance(r, dict) else r, reverse=rev))
        except TypeError as error:
            print("TypeError:", error)
        copy = list(data)
        try:
            copy.sort(reverse=rev, key=(lambda r: r["s"]) if isinstance(data[0], dict) else None)
        except TypeError as error:
            print("TypeError:", error, copy)
