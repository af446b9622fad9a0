# str.splitlines: every line boundary, \r\n as one, keepends (any truth value), ASCII and non-ASCII text,
# subclasses, and the argument errors in CPython's words.
samples = ["", "\n", "a", "a\n", "a\nb", "a\r\nb\rc\n\nd", "\r\n\r", "x\x0by\x0cz\x1cw\x1dv\x1eu\x1f",
           "tab\tstays", "é\nü\r\n", "a\x85b\u2028c\u2029d", "trailing\r"]
for text in samples:
    print(repr(text.splitlines()), repr(text.splitlines(True)), repr(text.splitlines(keepends=0)))
print("a\nb".splitlines("yes"), "a\nb".splitlines(keepends=[]), "a\nb".splitlines(2))


class Text(str):
    pass


lines = Text("one\ntwo").splitlines()
print(lines, [type(line).__name__ for line in lines])
print(len((("word " * 50 + "\n") * 2000).splitlines()))
for call in (lambda: "a".splitlines(True, 1), lambda: "a".splitlines(foo=1), lambda: str.splitlines(5)):
    try:
        call()
    except TypeError as error:
        print(type(error).__name__, error)
