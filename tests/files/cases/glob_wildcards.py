# glob.glob with *, ?, [ab], [!a], [0-9] and directory parts; results sorted since order is arbitrary.
import glob
import os

for name in ("a.txt", "b.txt", "c.txt", "ab.txt", "A.txt", "a.md", "file1.log", "file2.log", "file10.log",
             "dir1/x.txt", "dir2/y.txt", "dir2/z.md", "[x].txt"):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)

for pattern in ("*.txt", "?.txt", "[ab].txt", "[!a]*.txt", "file?.log", "file[0-9]*.log", "*", "a.*",
                "dir*/*.txt", "*/*", "dir?/", "*/", "nomatch*", "a.txt", "missing.txt", "dir1", "[[]x].txt",
                glob.escape("[x].txt"), "./*.md", "dir2/../*.md"):
    print(repr(pattern), sorted(glob.glob(pattern)))
matches = glob.iglob("*.log")
print(iter(matches) is matches, sorted(matches), glob.escape("a[b]*?.txt"))
