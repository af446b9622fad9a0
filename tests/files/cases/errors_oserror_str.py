# The text and fields of OSError subclasses raised by file operations, and errno's names for them.
import errno
import os

os.mkdir("d")
ops = [
    lambda: open("nope.txt"),
    lambda: os.stat("nope.txt"),
    lambda: os.mkdir("d"),
    lambda: os.listdir("nope"),
    lambda: os.rename("nope.txt", "dest.txt"),
    lambda: os.replace("d", "d/sub"),
    lambda: open("d"),
]
for op in ops:
    try:
        op()
    except OSError as e:
        print(type(e).__name__, errno.errorcode[e.errno], len(e.args), e.args)
        print("  str:", e)
        print("  repr-free:", type(e).__name__, e.errno, e.strerror, e.filename, e.filename2)
e = OSError(errno.ENOENT, "No such file or directory", "x.txt")
print(type(e).__name__, e, e.filename)
e = OSError(errno.EEXIST, "File exists")
print(type(e).__name__, e, e.filename)
print(FileNotFoundError(2, "gone").errno, str(PermissionError(13, "Permission denied", "p")))
