# os.remove and os.unlink delete files (not directories); an open file's handle keeps working afterwards.
import os

for name in ("a.txt", "b.txt", "c.txt", "sub/d.txt"):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)
print(os.remove("a.txt"), os.unlink("b.txt"))
print(sorted(os.listdir(".")))
os.remove("sub/d.txt")
print(os.listdir("sub"))

with open("c.txt", "r+", encoding="utf-8") as f:
    os.remove("c.txt")
    print(os.path.exists("c.txt"), sorted(os.listdir(".")))
    print(f.read())
    f.write(" still writable")
    f.seek(0)
    print(f.read())
with open("c.txt", "w", encoding="utf-8") as f:
    f.write("recreated")
with open("c.txt", encoding="utf-8") as f:
    print(f.read())
