# shutil.rmtree deletes a directory tree; it refuses files and missing paths unless ignore_errors=True.
import os
import shutil
import warnings

warnings.simplefilter("ignore", DeprecationWarning)  # onerror is deprecated from 3.12 on; the harness runs 3.11 too

for name in ("tree/a.txt", "tree/sub/b.txt", "tree/sub/deeper/c.txt", "tree/empty/.keep", "keep/k.txt"):
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)
print(shutil.rmtree("tree/sub"), sorted(os.listdir("tree")))
print(shutil.rmtree("tree"), sorted(os.listdir(".")))
for target in ("missing", "keep/k.txt"):
    try:
        shutil.rmtree(target)
    except OSError as e:
        print(target, type(e).__name__, e.errno, e.strerror, e.filename)
    print(shutil.rmtree(target, ignore_errors=True))
calls = []
shutil.rmtree("missing", onerror=lambda func, path, info: calls.append((func.__name__, path, info[0].__name__)))
print(calls)
os.makedirs("x/y/z")
shutil.rmtree("x/")
print(sorted(os.listdir(".")), os.path.exists("keep/k.txt"), shutil.rmtree.avoids_symlink_attacks in (True, False))
