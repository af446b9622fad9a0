# Bytes paths work like str paths; listing a bytes path gives bytes names, and errors keep the bytes filename.
import os

os.mkdir(b"bdir")
with open(b"bdir/file.txt", "w", encoding="utf-8") as f:
    print(repr(f.name))
    f.write("bytes path")
print(sorted(os.listdir(b"bdir")), sorted(os.listdir(b".")), os.listdir("bdir"))
print(os.path.exists(b"bdir/file.txt"), os.path.getsize(b"bdir/file.txt"), os.path.join(b"bdir", b"x"))
with os.scandir(b"bdir") as it:
    print([(e.name, e.path) for e in it])
print([(r, d, f) for r, d, f in os.walk(b"bdir")])
try:
    open(b"missing.bin", "rb")
except FileNotFoundError as e:
    print(type(e).__name__, repr(e.filename), e)
os.rename(b"bdir/file.txt", "bdir/renamed.txt")
os.remove(b"bdir/renamed.txt")
os.rmdir(b"bdir")
print(os.listdir(b"."), os.fsencode("caf\u00e9"), os.fsdecode(b"caf\xc3\xa9") == "caf\u00e9")
