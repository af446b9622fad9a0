# os.listdir: names only (no '.' or '..'), any order (so sorted here), default '.', hidden files included.
import os

print(os.listdir(), os.listdir("."))
for name in ("b.txt", "a.txt", ".hidden", "C.md", "space name.txt", "\u00fcnicode.txt"):
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)
os.makedirs("sub/deeper")
with open("sub/inner.txt", "w", encoding="utf-8") as f:
    f.write("inner")
print(sorted(os.listdir()))
print(sorted(os.listdir(".")) == sorted(os.listdir()), sorted(os.listdir("./")) == sorted(os.listdir()))
print(sorted(os.listdir("sub")), os.listdir("sub/deeper"), sorted(os.listdir("sub/")))
print(sorted(os.listdir("sub/deeper/..")))
print(type(os.listdir()).__name__, all(isinstance(n, str) for n in os.listdir()))
os.remove("a.txt")
print(len(os.listdir()), "a.txt" in os.listdir())
