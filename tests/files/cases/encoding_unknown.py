# An unknown encoding raises LookupError, but only after the file was opened: a missing file still gives
# FileNotFoundError, and a writing mode has already created the file.
import os

for mode in ("r", "w", "r", "a"):
    try:
        open("f.txt", mode, encoding="no-such-codec")
    except (LookupError, OSError) as e:
        print(mode, type(e).__name__, e, os.path.exists("f.txt"))

f = open("g.txt", "w", encoding="ascii", errors="no-such-handler")
f.write("ascii is fine")
try:
    f.write("\u20ac")
except LookupError as e:
    print(type(e).__name__, e)
f.close()
with open("g.txt", encoding="utf-8") as f:
    print(f.read(), f.errors)
try:
    open("g.txt", encoding=5)
except TypeError as e:
    print(type(e).__name__)
print(sorted(os.listdir()))
