# os.walk top-down (the default): each directory before its children; editing dirnames prunes the walk.
import os

for path in ("proj/src/pkg", "proj/docs", "proj/.git/objects", "proj/build/cache"):
    os.makedirs(path)
for path in ("proj/README", "proj/src/main.py", "proj/src/pkg/mod.py", "proj/docs/index.md",
             "proj/.git/HEAD", "proj/build/out.o"):
    with open(path, "w", encoding="utf-8") as f:
        f.write(path)

for root, dirnames, filenames in os.walk("proj"):
    dirnames.sort()
    print(root, dirnames, sorted(filenames))
print("--- pruned")
for root, dirnames, filenames in os.walk("proj", topdown=True):
    dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "build")
    print(root, dirnames, sorted(filenames))
print("--- relative forms")
print([r for r, d, f in os.walk("proj/src/")])
print(sorted(r for r, d, f in os.walk("./proj/docs")))
os.chdir("proj")
print(sorted(r for r, d, f in os.walk(".")))
print(list(os.walk("missing")), list(os.walk("README")))
