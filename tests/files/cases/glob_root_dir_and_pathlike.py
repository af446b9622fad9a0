# glob with root_dir (results relative to it), absolute patterns, trailing slashes and path-like roots.
import glob
import os
from pathlib import Path

for name in ("data/2023/jan.csv", "data/2023/feb.csv", "data/2024/jan.csv", "data/readme.md"):
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)
print(sorted(glob.glob("*/jan.csv", root_dir="data")))
print(sorted(glob.glob("*", root_dir=Path("data"))))
print(sorted(glob.glob("2023/*.csv", root_dir="data")))
print(sorted(glob.glob("*", root_dir="missing")), glob.glob("*", root_dir="data/readme.md"))
base = os.getcwd()
absolute = sorted(glob.glob(os.path.join(base, "data", "*", "jan.csv")))
print([os.path.relpath(p, base) for p in absolute], all(os.path.isabs(p) for p in absolute))
print(sorted(glob.glob("data/*/")), glob.glob("data/readme.md/"), glob.glob("data/2023/feb.csv"))
os.chdir("data")
print(sorted(glob.glob("*")), sorted(glob.glob("../data/20*")))
print(sorted(glob.glob("**/*.csv", recursive=True)), sorted(glob.glob("", recursive=True)))
