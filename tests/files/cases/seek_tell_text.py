# Text files: tell() gives opaque positions seek() accepts; only seek(0, 1) and seek(0, 2) are relative.
import io

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("line one\nline two\nline three\n")
    print(f.tell())
with open("f.txt", encoding="utf-8") as f:
    f.readline()
    mark = f.tell()
    print(mark, repr(f.readline()))
    print(f.seek(mark), repr(f.readline()))
    print(f.seek(0, io.SEEK_END), f.seek(0, io.SEEK_CUR), repr(f.read()))
    for args in ((1, io.SEEK_CUR), (-1, io.SEEK_END), (-1, io.SEEK_SET)):
        try:
            f.seek(*args)
        except (ValueError, OSError) as e:
            print(args, type(e).__name__, e)
    print(f.seek(0), f.read(4), f.tell())
with open("u.txt", "w", encoding="utf-8") as f:
    f.write("\u00e9t\u00e9\n")
with open("u.txt", encoding="utf-8") as f:
    print(repr(f.read(2)), f.tell())
    for line in f:
        try:
            f.tell()
        except OSError as e:
            print("tell", type(e).__name__, e)
    print(f.tell())
    try:
        f.seek(0, 5)
    except ValueError as e:
        print(type(e).__name__, e)
