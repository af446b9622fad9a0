# str.lower and str.upper: ASCII text (by bytes), non-ASCII text (Unicode mappings), subclasses give str, and
# the argument errors that have CPython's words.
for text in ["", "Hello, World! 123", "ALREADY lower MIX", "tab\tand\nnewline", "Ünïcödé ß straße", "ǅ İ ﬃ"]:
    print(repr(text.lower()), repr(text.upper()))


class Text(str):
    pass


print(type(Text("AbC").lower()).__name__, Text("AbC").lower(), type(Text("AbC").upper()).__name__)
print(("Word " * 1000).lower()[:20], len(("Word " * 1000).upper()))
# (keyword and missing-self wordings are RustPython's, tracked in the corpus: wording_str_split_join.py)
for call in (lambda: "a".lower(1), lambda: "a".upper(2), lambda: str.lower(5)):
    try:
        call()
    except TypeError as error:
        print(type(error).__name__, error)
