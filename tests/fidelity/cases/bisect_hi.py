# bisect with hi=-1 (CPython's C implementation: to the end of the list) and the other bounds.
import bisect

data = [1, 2, 2, 3, 5]
print(bisect.bisect(data, 2, hi=-1), bisect.bisect_left(data, 2, 0, -1), bisect.bisect_right(data, 4, hi=-1))
print(bisect.bisect(data, 2, 0, 2), bisect.bisect_left(data, 5, lo=1), bisect.bisect_right(data, 0, hi=None))
grown = [1, 3]
bisect.insort(grown, 2, hi=-1)
bisect.insort_left(grown, 4, 0, -1)
bisect.insort_right(grown, 0, hi=-1)
print(grown)
print(bisect.bisect([("a", 1), ("b", 2)], 2, key=lambda pair: pair[1], hi=-1))
try:
    bisect.bisect(data, 2, lo=-1)
except ValueError as error:
    print("ValueError:", error)
