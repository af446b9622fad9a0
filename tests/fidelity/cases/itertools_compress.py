# itertools.compress takes the next datum before the next selector (what more-itertools counts on), stops when
# either runs out, takes its arguments by name too, and can be subclassed.
from itertools import compress, count, repeat, takewhile, tee
print(list(compress('ABCDEF', [1, 0, 1, 0, 1, 1])), list(compress(data='abc', selectors=[0, 1, 1])))
counter = count(1)
print(len(list(compress(iter('abcd'), counter))), next(counter))
print(list(compress([], repeat(0))), list(compress(iter([1, 2]), repeat(0))))
print(compress, type(compress('a', [1])).__name__, compress.__module__)
class Mine(compress):
    pass
print(list(Mine('xyz', [1, 0, 1])))
try:
    compress(1, [1])
except TypeError as e:
    print(e)
