# sum(): CPython's argument errors, its refusals of str/bytes starts, exact int sums past 64 bits, and
# compensated float sums (3.12+), in every order of ints, floats and other types.
def show(expression):
    try:
        print(expression, "->", repr(eval(expression)))
    except Exception as error:
        print(expression, "->", type(error).__name__, error)


for expression in [
    "sum()", "sum(1, 2, 3)", "sum([], foo=1)", "sum([1], 0, start=1)", "sum([1], foo=1, start=2)",
    "sum(iterable=[1])", "sum(1)", "sum(['a'], '')", "sum([b'a'], b'')", "sum([], bytearray())",
    "sum(['x'], start=1)", "sum([1, 'a'])", "sum([1, 2.5, 'x'])", "sum([1.5, 'x'])",
    "sum([True, True])", "type(sum([True]))", "sum([], False)", "sum([True], False)", "sum([2], True)", "sum([1, True, False])", "sum([], start=5)",
    "sum([[1], [2]], [])", "sum(range(10**5))", "sum(i * i for i in range(1000))",
    "sum([2**62, 2**62, 2**62])", "sum([1, 2], 2**70)", "sum([1, -2**63, -1])", "sum([2**63 - 1, 1])",
    "sum([0.1] * 10)", "sum([1, 0.1, 0.2, 0.3])", "sum([0.1, 0.2, 0.3], 1)", "sum(x for x in [1.5, 2, True])",
    "sum([1.0, 2**53 + 1])", "sum([10**400, 0.5])", "sum([0.5, 10**400])",
    "sum([float('inf'), -float('inf')])", "sum([1e308, 1e308, -1e308])", "sum([1e308, 1e308])",
    "sum([-0.0])", "sum([0.0, -0.0])", "sum([], -0.0)", "sum([-0.0], -0.0)", "sum([1e100, 1.0, -1e100, 1.0])",
    "sum([0.5, 1j])", "sum([1, 1j, 2])", "sum([], 0.5)",
]:
    show(expression)


class Meters(int):
    def __add__(self, other):
        return Meters(int(self) + int(other) + 1000)


print(sum([Meters(1), 2, 3]), sum([1, Meters(2), 3]), sum([0.5, Meters(2)]))
