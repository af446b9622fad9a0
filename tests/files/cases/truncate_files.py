# truncate() cuts or extends (with zero bytes) a file, returns the new size and does not move the position.
import os

with open("f.bin", "wb") as f:
    f.write(b"0123456789")
with open("f.bin", "r+b") as f:
    print(f.truncate(4), f.tell(), os.path.getsize("f.bin"))
    f.seek(2)
    print(f.truncate(), f.tell(), f.read())
    print(f.truncate(6), f.tell())
with open("f.bin", "rb") as f:
    print(f.read())

with open("t.txt", "w+", encoding="utf-8") as f:
    f.write("hello world")
    f.seek(5)
    print(f.truncate(), f.tell())
    f.seek(0)
    print(repr(f.read()))
with open("t.txt", "a", encoding="utf-8") as f:
    print(f.truncate(2))
with open("t.txt", encoding="utf-8") as f:
    print(repr(f.read()))
    try:
        f.truncate(0)
    except Exception as e:
        print(type(e).__name__, e)
with open("f.bin", "r+b") as f:
    try:
        f.truncate(-1)
    except OSError as e:
        print(type(e).__name__, e.errno, e.strerror)
print(os.path.getsize("t.txt"), os.path.getsize("f.bin"))
