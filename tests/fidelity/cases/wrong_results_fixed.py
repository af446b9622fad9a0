# Results RustPython computed differently from CPython, in the sandbox as in CPython now.
import csv
import io
import math


def show(expression):
    try:
        print(expression, "->", repr(eval(expression)))
    except Exception as error:
        print(expression, "->", type(error).__name__ + ":", error)


# csv's QUOTE_NONNUMERIC reads unquoted fields as floats (the sandbox's field-size check once took their len()).
print(next(csv.reader(io.StringIO('5,6.5,"abc"\n'), quoting=csv.QUOTE_NONNUMERIC)))
print(list(csv.reader(io.StringIO('"7",-1e3,""\n'), quoting=csv.QUOTE_NONNUMERIC)))
out = io.StringIO()
csv.writer(out, quoting=csv.QUOTE_NONNUMERIC).writerow([1, 2.5, "text", None])
print(repr(out.getvalue()))

# math.cbrt is the C library's, as in CPython.
for expression in ["math.cbrt(27)", "math.cbrt(-8)", "math.cbrt(2)", "math.cbrt(0.001)", "math.cbrt('x')"]:
    show(expression)
