# Mode 'w+': truncate, then both write and read back through the same file object.
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("old contents that will vanish")

with open("f.txt", "w+", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable())
    print(repr(f.read()))
    f.write("line 1\nline 2\n")
    print(f.tell())
    f.seek(0)
    print(f.readlines())
    f.write("line 3\n")

with open("f.txt", "wb+") as f:
    print(f.mode)
    f.write(b"bytes!")
    f.seek(0)
    print(f.read(), f.tell())

with open("f.txt", "rb") as f:
    print(f.read())
