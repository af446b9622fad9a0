# rename/replace failures carry both names: filename and filename2, and str() shows 'src' -> 'dst'.
import os

os.makedirs("full/inside")
os.mkdir("empty")
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")

attempts = [
    ("missing.txt", "other.txt"),
    ("f.txt", "full"),
    ("f.txt", "nodir/f.txt"),
    ("empty", "full"),
    ("empty", "f.txt"),
    ("full", "full/inside/deeper"),
]
for func in (os.rename, os.replace):
    for src, dst in attempts:
        try:
            func(src, dst)
            print(func.__name__, src, dst, "ok")
        except OSError as e:
            print(func.__name__, type(e).__name__, e.errno, e.strerror, e.filename, e.filename2)
            print(" ", e)
print(sorted(os.listdir(".")), sorted(os.listdir("full")))
