# Mode 'w' creates a file or truncates an existing one to zero length before writing.
import os

with open("data.txt", "w", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable())
    print(f.write("a long first version\n"))
print(os.path.getsize("data.txt"))

with open("data.txt", "w", encoding="utf-8") as f:
    print(f.write("short\n"))
with open("data.txt", encoding="utf-8") as f:
    print(repr(f.read()))

f = open("data.txt", "w", encoding="utf-8")
print(os.path.getsize("data.txt"))
f.close()
with open("data.txt", encoding="utf-8") as f:
    print(repr(f.read()))

with open("empty.txt", "w", encoding="utf-8"):
    pass
print(os.path.exists("empty.txt"), os.path.getsize("empty.txt"))
print(sorted(os.listdir(".")))
