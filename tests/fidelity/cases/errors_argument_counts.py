# Calling a builtin function or method with the wrong number of arguments: CPython names the callable as
# `len()`, `list.append()`, `math.sqrt()` and says "takes exactly one argument" / "takes no arguments".
import math


def show(expression):
    try:
        eval(expression)
        print(expression, "-> no error")
    except TypeError as error:
        print(expression, "->", type(error).__name__ + ":", error)


for expression in [
    "len()", "len([], [])", "len(1, 2, 3)", "abs()", "abs(1, 2)", "ord()", "chr()", "hash()", "callable()",
    "repr()", "id()", "bin()", "hex()", "oct()", "ascii()", "[].append()", "[].append(1, 2)", "[].count()",
    "(1).bit_length(1)", "'a'.join()", "'a'.upper(1)", "'a'.lower(1, 2)", "{}.keys(1)", "math.sqrt()",
    "math.floor()", "divmod(1)", "isinstance(1)", "getattr(1)", "iter()", "next()", "sorted()", "round()",
    "pow(1)", "{}.get()", "'a'.count()",
]:
    show(expression)
