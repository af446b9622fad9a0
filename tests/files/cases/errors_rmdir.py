# rmdir of a non-empty directory is a plain OSError with errno 39 (ENOTEMPTY); other failures too.
import errno
import os

os.makedirs("full/inner")
os.mkdir("empty")
with open("file.txt", "w", encoding="utf-8") as f:
    f.write("x")

for target in ("full", "file.txt", "missing", "full/inner/nope", "."):
    try:
        os.rmdir(target)
        print(target, "removed")
    except OSError as e:
        print(target, type(e).__name__, e.errno, e.strerror, e.filename)
        print(" ", str(e), e.errno in (errno.ENOTEMPTY, errno.ENOTDIR, errno.ENOENT, errno.EINVAL))
os.rmdir("empty")
os.rmdir("full/inner")
os.rmdir("full")
print(sorted(os.listdir(".")), errno.ENOTEMPTY, errno.errorcode[39])
