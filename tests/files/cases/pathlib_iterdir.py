# Path.iterdir yields child paths (no '.' or '..') joined onto the directory path as written.
from pathlib import Path

for name in ("b.txt", "a.txt", ".hidden"):
    Path(name).write_text(name, encoding="utf-8")
Path("sub/inner").mkdir(parents=True)
Path("sub/x.py").write_text("x", encoding="utf-8")

print(sorted(Path(".").iterdir()))
print(sorted(Path().iterdir()))
print(sorted(str(p) for p in Path("sub").iterdir()))
print(sorted(p.name for p in Path("sub/").iterdir()))
print(sorted((p.name, p.is_dir()) for p in Path("./sub").iterdir()))
print([p for p in Path("sub/inner").iterdir()])
print(len(list(Path(".").iterdir())), all(p.parent == Path("sub") for p in Path("sub").iterdir()))
for target in ("missing", "a.txt"):
    try:
        list(Path(target).iterdir())
    except OSError as e:
        print(target, type(e).__name__, e.errno, e.filename)
