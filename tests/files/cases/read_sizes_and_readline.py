# read(n), read(-1), read(None), readline(), readline(limit) in text and binary mode, and at EOF.
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("alpha\nbeta\ngamma\n")

with open("f.txt", encoding="utf-8") as f:
    print(repr(f.read(3)), repr(f.read(0)), repr(f.read(4)), repr(f.read(-1)), repr(f.read(5)))
with open("f.txt", encoding="utf-8") as f:
    print(repr(f.read(None)))
with open("f.txt", encoding="utf-8") as f:
    print(repr(f.readline()), repr(f.readline(2)), repr(f.readline(-1)), repr(f.readline(0)))
    print(repr(f.readline()), repr(f.readline()), repr(f.readline()))
with open("f.txt", "rb") as f:
    print(f.read(3), f.read(0), f.read(4), f.read(-1), f.read(5))
with open("f.txt", "rb") as f:
    print(f.readline(), f.readline(2), f.readline(None), f.read1(3), f.peek(1)[:1])
with open("f.txt", "rb") as f:
    buf = bytearray(8)
    print(f.readinto(buf), bytes(buf), f.readinto(bytearray(100)), f.readinto(buf))
with open("f.txt", "rb", buffering=0) as f:
    print(f.read(4), f.readall(), f.read())
