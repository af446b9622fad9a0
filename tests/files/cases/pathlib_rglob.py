# Path.rglob(pattern) is glob('**/' + pattern): every level, including the starting directory.
from pathlib import Path

for name in ("top.py", "top.txt", "a/one.py", "a/b/two.py", "a/b/c/three.py", "a/b/c/data.json",
             ".config/settings.py", "empty/.keep"):
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(name, encoding="utf-8")

print(sorted(str(p) for p in Path(".").rglob("*.py")))
print(sorted(str(p) for p in Path("a").rglob("*.py")))
print(sorted(str(p) for p in Path("a").rglob("*")))
print(sorted(str(p) for p in Path().rglob("c")))
print(sorted(str(p) for p in Path("a/b").rglob("*.json")))
print(sorted(str(p) for p in Path(".").rglob(".keep")))
print(sorted(str(p) for p in Path(".").rglob("?o*.py")))
print(list(Path("missing").rglob("*.py")))
print(sum(1 for p in Path().rglob("*") if p.is_file()), sum(1 for p in Path().rglob("*") if p.is_dir()))
