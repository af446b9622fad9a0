# shutil.copytree copies a whole tree; dirs_exist_ok merges into an existing one; ignore filters names.
import os
import shutil

for name in ("src/a.txt", "src/b.log", "src/sub/c.txt", "src/sub/deep/d.log", "src/empty/.keep", "src/__pycache__/x.pyc"):
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)

def tree(root):
    return sorted(os.path.relpath(os.path.join(r, n), root) for r, ds, fs in os.walk(root) for n in ds + fs)

print(shutil.copytree("src", "copy"))
print(tree("copy") == tree("src"), tree("copy"))
print(shutil.copytree("src", "filtered", ignore=shutil.ignore_patterns("*.log", "__pycache__")))
print(tree("filtered"))
seen = []
def ignore(directory, names):
    seen.append((directory, sorted(names)))
    return [n for n in names if n.startswith("sub")]
shutil.copytree("src", "custom", ignore=ignore)
print(tree("custom"), sorted(seen))
os.makedirs("merge/extra")
with open("merge/a.txt", "w", encoding="utf-8") as f:
    f.write("will be overwritten")
print(shutil.copytree("src", "merge", dirs_exist_ok=True))
print(tree("merge"))
with open("merge/a.txt", encoding="utf-8") as f:
    print(f.read())
print(shutil.copytree("src/sub", "nested/new/place"), tree("nested"))
