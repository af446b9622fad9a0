# Characters the encoding cannot represent: UnicodeEncodeError at write(), or replaced per `errors`.
import os

try:
    with open("e.txt", "w", encoding="latin-1") as f:
        f.write("price: ")
        f.write("10\u20ac")
except UnicodeEncodeError as e:
    print(type(e).__name__, e.encoding, e.start, e.end, e.reason)
    print(e)
print(os.path.exists("e.txt"))

for errors in ("replace", "ignore", "xmlcharrefreplace", "backslashreplace", "namereplace"):
    with open("e.txt", "w", encoding="ascii", errors=errors) as f:
        f.write("caf\u00e9 \u20ac!")
    with open("e.txt", "rb") as f:
        print(errors, f.read())

with open("e.txt", "w", encoding="cp1252") as f:
    f.write("\u20ac\u201c\u201d")
with open("e.txt", "rb") as f:
    print(f.read())
