# str.strip, lstrip, rstrip: whitespace (every ASCII character isspace() is true for, and Unicode's), a set of
# characters, None, an empty set, text with nothing to strip (an exact str comes back itself, a subclass's as a
# new str), text that is all strip, non-ASCII text and sets, and the argument errors in CPython's words.
samples = ["", " ", "a", "  a b  ", "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f x \x1f", "\x00 a \x00", "xxhixx", "é ",
           "\u2003é\u00a0", " \x85a\x85", "abc", "\r\n"]
for text in samples:
    for chars in ((), (None,), ("x",), ("",), (" ax",), ("\x00 ",), ("é",)):
        print(repr(text), chars, repr(text.strip(*chars)), repr(text.lstrip(*chars)), repr(text.rstrip(*chars)))
line = "no padding here"
empty = ""
print(line.strip() is line, line.rstrip("\n") is line, line.lstrip(None) is line, empty.strip() is empty)


class Text(str):
    pass


stripped = Text("kept").strip()
print(repr(stripped), type(stripped).__name__, type(Text(" t ").rstrip()).__name__, type(Text("k").lstrip("z")).__name__)
print([w.strip(".,;") for w in "Hello, world; this is. text,".split()])
print(list(map(str.strip, [" a ", "b\n"])), str.rstrip("x  "), str.lstrip("..a", "."))
for call in (lambda: "a".strip(5), lambda: "a".strip("a", "b"), lambda: "a".rstrip(chars="a"), lambda: str.strip(5),
             lambda: "a".lstrip(b"a")):
    try:
        call()
    except TypeError as error:
        print(type(error).__name__, error)
