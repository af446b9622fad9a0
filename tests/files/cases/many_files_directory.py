# 500 files in one directory: listing, scandir, glob, stat and removal all see every one of them.
import glob
import os

os.mkdir("many")
for i in range(500):
    with open(f"many/file_{i:03d}.txt", "w", encoding="utf-8") as f:
        f.write(str(i) * (i % 7))
names = sorted(os.listdir("many"))
print(len(names), names[:3], names[-2:])
with os.scandir("many") as it:
    sizes = {e.name: e.stat().st_size for e in it}
print(len(sizes), sum(sizes.values()), sizes["file_123.txt"])
print(len(glob.glob("many/*.txt")), len(glob.glob("many/file_1??.txt")), sorted(glob.glob("many/*9[89].txt"))[:3])
total = 0
for name in names:
    with open(os.path.join("many", name), encoding="utf-8") as f:
        total += len(f.read())
print(total)
for name in names[::2]:
    os.remove(os.path.join("many", name))
print(len(os.listdir("many")), sorted(os.listdir("many"))[:2])
for name in os.listdir("many"):
    os.remove(os.path.join("many", name))
os.rmdir("many")
print(os.listdir("."))
