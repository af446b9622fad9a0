# Path.glob with *, ?, [ab], [!a] and **/ patterns (pathlib globbing also matches dot files).
from pathlib import Path

for name in ("a.txt", "b.txt", "c.md", "ab.txt", ".hidden.txt", "data1.csv", "data2.csv", "data10.csv",
             "src/main.py", "src/util.py", "src/pkg/mod.py", "src/pkg/notes.txt", "docs/a.txt"):
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(name, encoding="utf-8")

def show(pattern, base="."):
    print(repr(pattern), sorted(str(p) for p in Path(base).glob(pattern)))

show("*.txt")
show("?.txt")
show("[ab].txt")
show("[!a]*.txt")
show("data?.csv")
show("data[0-9]*.csv")
show("*")
show("*/*.py")
show("**/*.py")
show("**/*.txt")
show("src/**/*.py")
show("*.py", "src")
show("**/*.md", "docs")
show("nothing*")
print(sorted(Path("src").glob("pkg/*")))
