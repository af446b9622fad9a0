# Path.open takes the same modes as open(); the OSErrors pathlib raises carry the path as a str filename.
import os
from pathlib import Path

p = Path("f.txt")
with p.open("w", encoding="utf-8") as f:
    print(f.mode, repr(f.name), f.write("one\n"))
with p.open("a", encoding="utf-8") as f:
    f.write("two\n")
with p.open(encoding="utf-8") as f:
    print(f.readlines(), f.mode)
with p.open("rb") as f:
    print(f.read(), f.mode)
with p.open("r+", encoding="utf-8", newline="") as f:
    f.write("ONE")
print(p.read_text(encoding="utf-8").split())
Path("sub").mkdir()
for label, call in (("open missing", lambda: Path("missing.txt").open()),
                    ("open x", lambda: p.open("x")),
                    ("open dir", lambda: Path(".").open()),
                    ("rmdir file", lambda: p.rmdir()),
                    ("iterdir file", lambda: list(p.iterdir())),
                    ("mkdir file", lambda: p.mkdir()),
                    ("rename onto dir", lambda: p.rename(Path("sub"))),
                    ("read_bytes dir", lambda: Path(os.curdir).read_bytes())):
    try:
        call()
    except OSError as e:
        print(label, type(e).__name__, e.errno, e.strerror, repr(e.filename))
        print("  ", e)
