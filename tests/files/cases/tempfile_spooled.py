# SpooledTemporaryFile keeps data in memory until max_size, then rolls over to a real file; reads are the same.
import tempfile

with tempfile.SpooledTemporaryFile(max_size=10) as f:
    print(f.write(b"small"), f.tell())
    f.seek(0)
    print(f.read())
    f.write(b" and now much longer than ten bytes")
    f.seek(0)
    print(f.read(), f.tell())
    f.seek(6)
    print(f.read(3), f.closed)
print(f.closed)

with tempfile.SpooledTemporaryFile(max_size=100, mode="w+", encoding="utf-8") as f:
    f.write("text mode\nsecond\n")
    f.seek(0)
    print(f.readline(), end="")
    print(f.readlines())
    f.rollover()
    f.seek(0)
    print(repr(f.read()), f.mode, f.encoding)

with tempfile.SpooledTemporaryFile() as f:
    f.writelines([b"a", b"b"])
    f.seek(0)
    print(f.read(), f.truncate(1))
    f.seek(0)
    print(f.read())
