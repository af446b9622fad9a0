# Mode 'x' (and 'x+', 'xb') creates a new file and fails if it already exists.
import os

with open("fresh.txt", "x", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable())
    f.write("made\n")
with open("fresh.txt", encoding="utf-8") as f:
    print(f.read().strip())

with open("plus.txt", "x+", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable())
    f.write("rw")
    f.seek(0)
    print(f.read())

with open("raw.bin", "xb") as f:
    print(f.mode, f.write(b"\x00\x01"))

for name in ("fresh.txt", "raw.bin"):
    try:
        open(name, "x")
    except FileExistsError as e:
        print(type(e).__name__, e.errno, e.strerror, e.filename)
with open("fresh.txt", encoding="utf-8") as f:
    print(f.read().strip(), os.path.getsize("raw.bin"))
print(sorted(os.listdir()))
