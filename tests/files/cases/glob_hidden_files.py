# glob skips names starting with '.' unless the pattern part starts with '.' or include_hidden=True.
import glob
import os

for name in (".env", ".hidden/secret.txt", "visible.txt", "dir/.dotfile", "dir/shown.txt", ".a.txt"):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(name)

for pattern in ("*", ".*", "*.txt", ".*.txt", "*/*", "dir/*", "dir/.*", ".hidden/*", "**/*.txt", "**"):
    print(repr(pattern), sorted(glob.glob(pattern, recursive=True)))
    print(repr(pattern), "include_hidden", sorted(glob.glob(pattern, recursive=True, include_hidden=True)))
print(sorted(os.listdir(".")))
