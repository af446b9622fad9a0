# Path.rename/replace return the new Path; they overwrite files, and relative targets follow the cwd.
import os
from pathlib import Path

Path("a.txt").write_text("A", encoding="utf-8")
Path("b.txt").write_text("B", encoding="utf-8")
Path("dir").mkdir()
new = Path("a.txt").rename("c.txt")
print(repr(new), new.read_text(encoding="utf-8"), Path("a.txt").exists())
new = Path("c.txt").rename(Path("dir") / "c.txt")
print(repr(new), sorted(os.listdir("dir")))
moved = Path("b.txt").replace("dir/c.txt")
print(repr(moved), moved.read_text(encoding="utf-8"), Path("b.txt").exists())
renamed = Path("dir").rename("folder")
print(repr(renamed), renamed.is_dir(), [p.name for p in renamed.iterdir()])
os.chdir("folder")
Path("c.txt").rename("../top.txt")
os.chdir("..")
print(sorted(os.listdir(".")), Path("top.txt").read_text(encoding="utf-8"))
try:
    Path("missing").rename("x")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.filename, e.filename2)
Path("f").write_text("f", encoding="utf-8")
try:
    Path("folder").replace("f")
except NotADirectoryError as e:
    print(type(e).__name__, e.errno, e.filename, e.filename2)
p = Path("top.txt")
print(repr(p.rename(p.with_suffix(".md"))), sorted(os.listdir(".")))
