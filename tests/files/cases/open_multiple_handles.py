# Several file objects on one file keep independent positions and see each other's flushed writes.
import os

with open("shared.txt", "w", encoding="utf-8") as f:
    f.write("0123456789")
a = open("shared.txt", encoding="utf-8")
b = open("shared.txt", encoding="utf-8")
print(a.read(3), b.read(5), a.read(2), b.read())
w = open("shared.txt", "a", encoding="utf-8")
w.write("ABC")
w.flush()
print(repr(a.read()), repr(b.read()))
c = open("shared.txt", "r+", encoding="utf-8")
c.write("xy")
c.flush()
a.seek(0)
print(a.read())
w.write("!")
w.close()
c.close()
b.seek(0)
print(b.read(), os.path.getsize("shared.txt"))
a.close()
b.close()
with open("shared.txt", "w", encoding="utf-8") as t:
    with open("shared.txt", encoding="utf-8") as r:
        print(repr(r.read()))
print(os.path.getsize("shared.txt"))
