# Errors RustPython words its own way, in CPython's words: unbound locals and free variables, list and tuple
# concatenation, C integer sizes, recursion, in str() and the traceback (their args keep RustPython's words).
import traceback


def show(source):
    try:
        exec(source, {})
        print(repr(source), "-> no error")
    except Exception as error:
        print(repr(source), "->", type(error).__name__ + ":", error)


for source in [
    "def f():\n    x += 1\nf()",
    "def f():\n    print(x)\n    x = 1\nf()",
    "def f():\n    def g():\n        return x\n    g()\n    x = 1\nf()",
    "[1] + 1", "[1] + (1,)", "[1] + None", "(1,) + [2]", "'a' + 1", "1 + 'a'",
    "len(range(2**70))", "[1][2**70]", "1 / 0",
    "def r():\n    return r()\nr()",
]:
    show(source)


def unbound():
    total += 1


try:
    unbound()
except UnboundLocalError as error:
    print(traceback.format_exception_only(error)[-1].strip())


# A value that is not in a list, as list.index and list.remove name it.
for source in ["[1, 2].index(3)", "['a'].index('b')", "[1].index(2, 0, 1)", "[None].index([])", "[1].remove(2)", "[1].remove('1')"]:
    show(source)


# A str given to hashlib to hash, as models write it.
for source in ["__import__('hashlib').sha256('abc')", "__import__('hashlib').md5('abc')",
               "__import__('hashlib').new('sha256', 'abc')", "__import__('hashlib').sha1().update('abc')",
               "__import__('hashlib').sha256(b'abc').hexdigest()[:8]"]:
    show(source)
