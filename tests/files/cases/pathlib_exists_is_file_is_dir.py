# Path.exists/is_file/is_dir/is_symlink on files, directories, missing paths and paths through a file.
from pathlib import Path

Path("d/sub").mkdir(parents=True)
Path("f.txt").write_text("x", encoding="utf-8")
Path("d/sub/g.txt").write_bytes(b"")
for name in ("f.txt", "d", "d/sub", "d/sub/g.txt", "missing", "f.txt/child", "d/missing/x", ".", "d/sub/..",
             "d/./sub"):
    p = Path(name)
    print(repr(name), p.exists(), p.is_file(), p.is_dir(), p.is_symlink())
print(Path("").exists(), str(Path("")), Path("d/sub/").is_dir(), str(Path("d/sub/")))
print(Path("f.txt").is_mount(), Path("d").samefile("d/sub/.."), Path("f.txt").samefile(Path("d/../f.txt")))
Path("f.txt").unlink()
print(Path("f.txt").exists(), Path("f.txt").is_file())
