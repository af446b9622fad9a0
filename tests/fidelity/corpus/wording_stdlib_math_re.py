# Computing summary statistics over sensor readings: math/statistics/re/decimal/csv/eval error wordings.
# %% helper and readings
import csv
import io
import math
import re
import statistics
from decimal import Decimal
from fractions import Fraction

def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

readings = [4.0, 9.0, -1.0, 0.0, 16.0]
print(len(readings), statistics.mean(readings))

# %% math and statistics errors that match
show(lambda: math.sqrt("4"))
show(lambda: math.factorial(-1))
show(lambda: math.factorial(1.5))
show(lambda: math.exp(1000))
show(lambda: math.floor("a"))
show(lambda: math.gcd(1.5, 2))
show(lambda: math.comb(2, -1))
show(lambda: math.isqrt(-1))
show(lambda: math.pow(0, -1))
show(lambda: math.fsum(["a"]))
show(lambda: math.prod(5))
show(lambda: statistics.mean([]))
show(lambda: statistics.median([]))
show(lambda: statistics.stdev([1]))
show(lambda: statistics.variance([1]))
show(lambda: statistics.mode([]))
show(lambda: statistics.mean(["a"]))
show(lambda: statistics.quantiles([1], n=4))

# %% square roots of every reading, uncaught
roots = [math.sqrt(r) for r in readings]

# %% log of zero and of a negative
show(lambda: math.log(0))
show(lambda: math.log(-1))

# %% fix: skip the domain errors
roots = {r: round(math.sqrt(r), 3) for r in readings if r >= 0}
logs = {r: round(math.log(r), 3) for r in readings if r > 0}
print(roots, logs)

# %% regex errors that match
show(lambda: re.compile("("))
show(lambda: re.compile("[a-"))
show(lambda: re.compile("a**"))
show(lambda: re.compile("(?P<n>a)(?P<n>b)"))
show(lambda: re.compile(r"\1"))
show(lambda: re.search(5, "a"))
show(lambda: re.match("(a)", "a").group(2))
show(lambda: re.match("(a)", "a").group("x"))
show(lambda: re.match("a", "b").group())
show(lambda: re.sub("(a)", r"\2", "a"))
show(lambda: re.compile(r"(?<=a+)b"))

# %% re.search on a number
# differs: "expected string got 'int'" instead of "expected string or bytes-like object, got 'int'"
show(lambda: re.search(r"\d", 42))

# %% re.sub with an int replacement
# differs: "expected string got 'int'" instead of "decoding to str: need a bytes-like object, int found"
show(lambda: re.sub("a", 5, "a"))

# %% Decimal and Fraction errors that match
show(lambda: Fraction(1, 0))
show(lambda: Fraction("abc"))
show(lambda: Fraction(1.5, 2))
show(lambda: Decimal("1.10") + Decimal("2.205"))

# %% Decimal from a bad literal and division by zero
show(lambda: Decimal("abc"))
show(lambda: Decimal(1) / 0)

# %% Decimal plus float
# differs: "unsupported operand type(s) for +: 'Decimal' and 'float'" instead of "... 'decimal.Decimal' and 'float'"
show(lambda: Decimal("1.5") + 1.5)

# %% Decimal from a one-element list
# differs: "Invalid tuple size in creation of Decimal from list or tuple.  The list or tuple should have exactly three elements." instead of "argument must be a sequence of length 3"
show(lambda: Decimal([1]))

# %% csv errors
show(lambda: list(csv.reader(5)))
show(lambda: list(csv.DictReader(io.StringIO("a\n1"), foo=1)))

# %% csv writerow with a number
# differs: "Error: 'int' object is not iterable" instead of "Error: iterable expected, not int"
show(lambda: csv.writer(io.StringIO()).writerow(5))

# %% eval / exec of a non-string
# differs: "unexpected type int" instead of "eval() arg 1 must be a string, bytes or code object" (same for exec)
show(lambda: eval(5))
show(lambda: exec(5))

# %% property() with too many arguments
# differs: "property expected at most 4 arguments, got 5" instead of "property() takes at most 4 arguments (5 given)"
show(lambda: property(1, 2, 3, 4, 5))

# %% summary
valid = [r for r in readings if r > 0]
summary = {
    "n": len(valid),
    "mean": round(statistics.mean(valid), 3),
    "stdev": round(statistics.stdev(valid), 3),
    "geo": round(statistics.geometric_mean(valid), 3),
}
print(summary)
SUBMIT(summary=summary)
