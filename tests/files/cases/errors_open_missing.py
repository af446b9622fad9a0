# Opening a missing file for reading, or a file inside a missing directory, raises FileNotFoundError.
import errno
import os

for name, mode in (("missing.txt", "r"), ("missing.txt", "rb"), ("missing.txt", "r+"),
                   ("nodir/new.txt", "w"), ("nodir/new.txt", "a"), ("nodir/new.txt", "x"),
                   ("a/b/c.txt", "wb")):
    try:
        open(name, mode)
    except FileNotFoundError as e:
        print(name, mode, type(e).__name__, e.errno, e.strerror, e.filename, e.filename2)
        print(str(e), e.errno == errno.ENOENT, e.args)
try:
    open("", "r")
except OSError as e:
    print(type(e).__name__, e.errno, repr(e.filename))
print(os.listdir("."))
