# '**' is recursive only with recursive=True: it matches zero or more directory levels.
import glob
import os

for name in ("top.py", "a/one.py", "a/b/two.py", "a/b/c/three.py", "a/b/c/data.txt", "z/four.py"):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)

for pattern in ("**/*.py", "a/**/*.py", "**/c", "a/**", "**", "a/**/", "**/*.txt", "**/b/**/*.py"):
    print(repr(pattern), "recursive", sorted(glob.glob(pattern, recursive=True)))
    print(repr(pattern), "plain", sorted(glob.glob(pattern)))
print(sorted(glob.iglob("**/*.py", recursive=True)))
print(sorted(glob.glob("**/*.py", root_dir="a", recursive=True)))
print(sorted(glob.glob("*", root_dir="a/b")))
