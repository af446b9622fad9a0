# open() on a directory raises IsADirectoryError (errno 21) in every mode that can name an existing path.
import os

os.mkdir("folder")
for mode in ("r", "rb", "w", "a", "r+", "wb", "a+b"):
    try:
        open("folder", mode)
    except IsADirectoryError as e:
        print(mode, type(e).__name__, e.errno, e.strerror, e.filename)
        print(str(e), isinstance(e, OSError))
for mode in ("x", "xb"):
    try:
        open("folder", mode)
    except OSError as e:
        print(mode, type(e).__name__, e.errno, e.strerror, e.filename)
try:
    open(".", encoding="utf-8")
except OSError as e:
    print(type(e).__name__, e.errno, e.filename)
print(os.path.isdir("folder"), os.listdir("folder"))
