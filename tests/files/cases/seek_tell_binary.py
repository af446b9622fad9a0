# seek(offset, whence) and tell() on binary files, including seeking past the end and writing there.
import io
import os

with open("f.bin", "wb") as f:
    f.write(b"0123456789")
with open("f.bin", "rb") as f:
    print(f.tell(), f.seek(4), f.read(2), f.tell())
    print(f.seek(-3, io.SEEK_END), f.read())
    print(f.seek(2, os.SEEK_SET), f.seek(3, os.SEEK_CUR), f.read(1), f.seek(-2, 1), f.read(1))
    print(f.seek(0, 2), f.read(), f.seek(100), f.read(), f.tell())
    try:
        f.seek(0, 5)
    except ValueError as e:
        print(type(e).__name__, e)
    try:
        f.seek(-1)
    except OSError as e:
        print(type(e).__name__, e.errno, e.strerror)
with open("f.bin", "r+b") as f:
    f.seek(13)
    f.write(b"!")
with open("f.bin", "rb") as f:
    print(f.read(), os.path.getsize("f.bin"))
print(io.SEEK_SET, io.SEEK_CUR, io.SEEK_END, os.SEEK_END)
