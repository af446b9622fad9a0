# An unknown encoding raises LookupError, but only after the file was opened: a missing file still gives
# FileNotFoundError, and a writing mode has already created the file.
import os

for mode in ("r", "w", "r", "a"):
    try:
        open("f.txt", mode, encoding="no-such-codec")
    except (LookupError, OSError) as e:
        print(mode, type(e).__name__, e, os.path.exists("f.txt"))

# An unknown errors handler: CPython fails at the first write that needs it, the VM's TextIOWrapper when the file
# is opened (docs/files.md, known differences): "strict" here keeps the case about the codec.
f = open("g.txt", "w", encoding="ascii", errors="strict")
f.write("ascii is fine")
try:
    f.write("\u20ac")
except (LookupError, UnicodeEncodeError) as e:
    print(type(e).__name__)
f.close()
with open("g.txt", encoding="utf-8") as f:
    print(f.read(), f.errors)
try:
    open("g.txt", encoding=5)
except TypeError as e:
    print(type(e).__name__)
print(sorted(os.listdir()))
