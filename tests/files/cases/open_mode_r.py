# Mode 'r' (the default): reads text, refuses writes, leaves the file as it was.
import os

with open("notes.txt", "w", encoding="utf-8") as f:
    f.write("first line\nsecond line\n")

f = open("notes.txt", encoding="utf-8")
print(f.mode, f.readable(), f.writable(), f.seekable())
print(repr(f.read()))
print(repr(f.read()), repr(f.readline()))
f.close()

with open("notes.txt", "r", encoding="utf-8") as f:
    print(f.mode, repr(f.read(5)), f.tell())

with open("notes.txt", "rt", encoding="utf-8") as f:
    print(f.mode, len(f.read()))

print(os.path.getsize("notes.txt"))
