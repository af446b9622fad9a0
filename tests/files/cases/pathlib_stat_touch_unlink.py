# Path.stat, Path.touch (create, keep contents, exist_ok=False), Path.unlink (missing_ok), Path.rmdir.
import stat
from pathlib import Path

p = Path("t.txt")
print(p.touch(), p.exists(), p.stat().st_size)
p.write_text("keep", encoding="utf-8")
p.touch()
print(p.read_text(encoding="utf-8"), p.stat().st_size, stat.S_ISREG(p.stat().st_mode))
try:
    p.touch(exist_ok=False)
except FileExistsError as e:
    print(type(e).__name__, e.errno, e.strerror, e.filename)
Path("d").mkdir()
print(stat.S_ISDIR(Path("d").stat().st_mode), Path("d").lstat().st_mode == Path("d").stat().st_mode)
Path("d/inner").touch(mode=0o600)
print(sorted(q.name for q in Path("d").iterdir()))
try:
    Path("nodir/x").touch()
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.filename)
print(p.unlink(), p.exists())
try:
    p.unlink()
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.filename)
print(p.unlink(missing_ok=True))
for target, call in (("d", Path("d").unlink), ("d", Path("d").rmdir)):
    try:
        call()
    except OSError as e:
        print(call.__name__, type(e).__name__, e.errno, e.filename)
Path("d/inner").unlink()
print(Path("d").rmdir(), Path("d").exists())
try:
    Path("missing").stat()
except FileNotFoundError as e:
    print(type(e).__name__, e.filename)
