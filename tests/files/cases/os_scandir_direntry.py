# os.scandir yields DirEntry objects: name, path, is_file/is_dir/is_symlink, stat(), and works as a context manager.
import os
import stat

with open("file.txt", "w", encoding="utf-8") as f:
    f.write("12345")
os.mkdir("folder")
with open("folder/nested.bin", "wb") as f:
    f.write(b"\x00" * 300)

with os.scandir() as it:
    for entry in sorted(it, key=lambda e: e.name):
        print(entry.name, entry.path, entry.is_file(), entry.is_dir(), entry.is_symlink(),
              entry.is_dir(follow_symlinks=False), os.fspath(entry), isinstance(entry.inode(), int))
        st = entry.stat()
        print("  ", stat.S_ISDIR(st.st_mode), stat.S_ISREG(st.st_mode), st.st_size if entry.is_file() else "-")
with os.scandir("folder") as it:
    entries = list(it)
print([(e.name, e.path, e.stat().st_size) for e in entries])
with os.scandir("./folder/") as it:
    print([e.path for e in it])
it = os.scandir(".")
print(sorted(e.name for e in it))
it.close()
it.close()
print(type(entries[0]).__name__, os.path.join("x", entries[0]), os.path.getsize(entries[0]))
