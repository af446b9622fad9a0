# Mode 'r+': read and write without truncating; writes overwrite in place at the current position.
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("0123456789")

with open("f.txt", "r+", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable(), f.tell())
    f.write("ab")
    print(f.tell())
    print(repr(f.read(3)))
    f.seek(8)
    f.write("XYZ")
    f.seek(0)
    print(repr(f.read()))

with open("f.txt", "rb+") as f:
    print(f.mode)
    f.seek(2)
    f.write(b"__")
with open("f.txt", "rb") as f:
    print(f.read())

try:
    open("missing.txt", "r+")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.strerror, e.filename)
