# Counter counts an iterable in native code (collections._count_elements): the same counts, order of first
# appearance, errors, and a subclass's or another mapping's own methods honoured.
from collections import Counter, OrderedDict, _count_elements

words = "the quick brown fox jumps over the lazy dog the end".split()
c = Counter(words)
print(c.most_common(3), list(c)[:4])
c.update(iter(["fox", "fox", "new"]))
print(c["fox"], c["new"], c["missing"])
print(Counter("abracadabra"), Counter(x % 3 for x in range(10)))


class Logged(Counter):
    def __setitem__(self, key, value):
        print("set", key, value)
        super().__setitem__(key, value)


Logged("aba")
od = OrderedDict()
_count_elements(od, "banana")
print(od)


class Weird(dict):
    def get(self, key, default=None):
        return super().get(key, 10)


w = Weird()
_count_elements(w, "aab")
print(w)
floats = {"x": 0.5}
_count_elements(floats, ["x", "x"])
print(floats)
try:
    Counter([[1], [2]])
except TypeError as error:
    print(type(error).__name__, error)
try:
    _count_elements({}, 5)
except TypeError as error:
    print(type(error).__name__, error)
