# TemporaryFile: an anonymous file object that reads back what was written; nothing lands in the cwd.
import os
import tempfile

with tempfile.TemporaryFile() as f:
    print(f.mode, f.readable(), f.writable(), f.seekable())
    f.write(b"abc" * 1000)
    print(f.tell())
    f.seek(0)
    print(f.read(6), len(f.read()))
print(f.closed)
with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as f:
    f.write("x\r\ny\n")
    f.seek(0)
    print(f.readlines(), f.encoding)
f = tempfile.TemporaryFile(mode="w+b", suffix=".bin", prefix="p")
f.write(b"123")
f.seek(1)
print(f.read())
f.close()
print(f.closed, os.listdir("."))
