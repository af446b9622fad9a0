# os.path.exists/isfile/isdir/getsize/lexists/samefile/isabs on files, directories and missing paths.
import os

with open("f.txt", "wb") as f:
    f.write(b"x" * 1234)
os.makedirs("d/sub")
with open("d/sub/empty", "w", encoding="utf-8"):
    pass
for path in ("f.txt", "d", "d/sub", "d/sub/empty", "missing", "", ".", "..", "d/sub/../../f.txt"):
    print(repr(path), os.path.exists(path), os.path.isfile(path), os.path.isdir(path),
          os.path.lexists(path), os.path.islink(path))
print(os.path.getsize("f.txt"), os.path.getsize("d/sub/empty"))
try:
    os.path.getsize("missing")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.filename)
print(os.path.samefile("f.txt", "d/../f.txt"), os.path.samefile("d", "d/sub/.."), os.path.samefile("d", "f.txt"))
print(os.path.isabs("f.txt"), os.path.isabs("/case"), os.path.isabs(os.path.abspath("f.txt")))
print(os.path.ismount("d"), os.path.exists(os.getcwd()), os.path.isdir(os.getcwd()))
