# Mode 'x' on an existing file raises FileExistsError (errno 17) and leaves the file untouched.
import errno
import os

with open("here.txt", "w", encoding="utf-8") as f:
    f.write("keep me")
os.mkdir("adir")
for name, mode in (("here.txt", "x"), ("here.txt", "xb"), ("here.txt", "x+"), ("adir", "x")):
    try:
        open(name, mode)
    except FileExistsError as e:
        print(name, mode, type(e).__name__, e.errno, e.strerror, e.filename, e.errno == errno.EEXIST)
        print(str(e))
with open("here.txt", encoding="utf-8") as f:
    print(f.read())
print(issubclass(FileExistsError, OSError), FileExistsError.__mro__[1].__name__)
