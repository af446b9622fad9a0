# os.remove/os.unlink refuse directories (IsADirectoryError on Linux) and missing files.
import os

os.mkdir("d")
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")
for func in (os.remove, os.unlink):
    for target in ("d", "missing.txt", "d/nothing", "f.txt/child"):
        try:
            func(target)
        except OSError as e:
            print(func.__name__, target, type(e).__name__, e.errno, e.strerror, e.filename)
os.unlink("f.txt")
try:
    os.remove("f.txt")
except FileNotFoundError as e:
    print("second remove", e)
print(sorted(os.listdir(".")))
