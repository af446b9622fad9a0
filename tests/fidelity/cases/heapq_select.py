# heapq.nlargest / nsmallest run in native code in the sandbox: the same results, ties, shortcuts, errors, and the
# same calls to key and to the elements' comparisons, in the same order, as CPython's Python code.
import heapq
import itertools
import random

rng = random.Random(7)
for trial in range(300):
    size = rng.choice([0, 1, 2, 3, 5, 10, 50, 200])
    data = [rng.randint(-5, 5) for _ in range(size)]
    n = rng.choice([-2, 0, 1, 2, 3, 7, 10, 300])
    for key in (None, abs, lambda x: -x, lambda x: x % 3):
        for source in (list, iter, tuple):
            got_l = heapq.nlargest(n, source(data), key=key)
            got_s = heapq.nsmallest(n, source(data), key=key)
            assert got_l == sorted(data, key=key, reverse=True)[:max(n, 0)], (n, data, got_l)
            assert got_s == sorted(data, key=key)[:max(n, 0)], (n, data, got_s)
print("random cases agree with sorted()")

# Ties keep the first seen first: the elements are told apart by identity.
pairs = [(i % 3, i) for i in range(12)]
print(heapq.nlargest(4, pairs, key=lambda p: p[0]), heapq.nsmallest(4, pairs, key=lambda p: p[0]))
print(heapq.nlargest(4, iter(pairs), key=lambda p: p[0]), heapq.nsmallest(4, iter(pairs), key=lambda p: p[0]))
words = "the quick brown fox jumps over the lazy dog again and again".split()
print(heapq.nlargest(3, words, key=len), heapq.nsmallest(3, words, key=len), heapq.nlargest(2, words))
print(heapq.nlargest(1, iter(words), key=len), heapq.nsmallest(1, []), heapq.nlargest(0, words), heapq.nlargest(-1, iter(words)))
print(heapq.nlargest(3, "hello world"), heapq.nsmallest(2, {"b": 1, "a": 2, "c": 3}), heapq.nlargest(2, range(10**6)))
print(heapq.nlargest(True, [3, 1, 2]), heapq.nsmallest(2, iter([2.5, 1, 3]), None))

# Ints, floats and strs are compared natively: code-point order (surrogates too), big ints, NaN, mixed kinds.
texts = ["\ue000", "b", "\ud800", "\U00010000", "\uffff", "a", "\x7f", "\xff", "ab", ""] * 3
print(ascii(heapq.nsmallest(5, iter(texts))), ascii(heapq.nlargest(5, iter(texts))))
numbers = [10**30, -(10**30), 3, True, 2.5, float("nan"), float("inf"), -0.0, 0, 7] * 2
print(heapq.nlargest(4, iter(numbers)), heapq.nsmallest(4, iter(numbers)))
print(heapq.nlargest(3, iter([float("nan"), 1.0, 2.0, float("nan"), 3.0, 0.5])))

# Only n elements are taken before the rest is scanned; the iterator is used up, no more.
it = iter(range(10))
print(heapq.nlargest(3, itertools.islice(it, 5)), list(it))

# Every call to key, and every comparison, in CPython's order.
calls = []


def key(x):
    calls.append(x)
    return x % 7


print(heapq.nlargest(3, iter(range(20)), key=key), calls)
calls.clear()
print(heapq.nsmallest(3, range(20, 0, -1), key=key), calls)


class Loud:
    log = []

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        Loud.log.append((self.v, other.v))
        return self.v < other.v

    def __eq__(self, other):
        return self.v == other.v

    def __repr__(self):
        return f"L{self.v}"


# The comparisons of the scan, in order (those of the final `list.sort` are left out: RustPython's sort compares
# in another order than CPython's, with or without this).
values = [Loud(v) for v in [5, 1, 4, 1, 5, 9, 2, 6, 0, 7]]
print(heapq.nlargest(3, iter(values)), Loud.log[:12])
Loud.log.clear()
print(heapq.nsmallest(3, iter(values)), Loud.log[:12])

# The errors CPython's code raises.
for call in (
    lambda: heapq.nlargest(2.0, [1, 2, 3]),
    lambda: heapq.nlargest(2.0, iter([1, 2, 3])),
    lambda: heapq.nlargest("2", [1, 2, 3]),
    lambda: heapq.nsmallest(2, [1, "a", 2]),
    lambda: heapq.nsmallest(2, iter([1, "a", 2, 0])),
    lambda: heapq.nlargest(2, iter([1, 2, 3]), key=len),
    lambda: heapq.nlargest(2, 5),
    lambda: heapq.nlargest(2),
    lambda: heapq.nlargest(2, [1], key=None, extra=1),
    lambda: heapq.nlargest(n=2, iterable=[3, 1, 2]),
):
    try:
        print(call())
    except Exception as error:
        print(type(error).__name__, error)


class Sized:
    def __len__(self):
        raise ValueError("no length here")

    def __iter__(self):
        return iter([1, 2])


try:
    heapq.nlargest(2, Sized())
except ValueError as error:
    print("ValueError", error)
