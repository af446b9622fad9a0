# Written data sits in the file object's buffer until flush() or close(); another reader sees it only then.
import os

w = open("f.txt", "w", encoding="utf-8")
w.write("buffered")
with open("f.txt", encoding="utf-8") as r:
    print(repr(r.read()), os.path.getsize("f.txt"))
w.flush()
with open("f.txt", encoding="utf-8") as r:
    print(repr(r.read()), os.path.getsize("f.txt"))
w.write(" more")
w.close()
with open("f.txt", encoding="utf-8") as r:
    print(repr(r.read()))

raw = open("g.bin", "wb", buffering=0)
raw.write(b"unbuffered")
print(os.path.getsize("g.bin"))
raw.close()

lines = open("h.txt", "w", encoding="utf-8", buffering=1)
lines.write("partial")
print(os.path.getsize("h.txt"))
lines.write(" line\nnext")
print(os.path.getsize("h.txt"))
lines.close()
print(os.path.getsize("h.txt"))

big = open("big.bin", "wb", buffering=16)
big.write(b"x" * 40)
print(os.path.getsize("big.bin"))
big.close()
print(os.path.getsize("big.bin"))
