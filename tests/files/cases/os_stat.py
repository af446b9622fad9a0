# os.stat/os.lstat: st_size of files, file type in st_mode via stat.S_ISDIR/S_ISREG, tuple-like result.
import os
import stat

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("hello\n")
os.mkdir("d")
st = os.stat("f.txt")
print(st.st_size, stat.S_ISREG(st.st_mode), stat.S_ISDIR(st.st_mode), stat.S_ISLNK(st.st_mode))
print(st[stat.ST_SIZE], st[6] == st.st_size, len(tuple(st)), type(st).__name__)
print(stat.S_IFMT(st.st_mode) == stat.S_IFREG, isinstance(st.st_mtime, float), isinstance(st.st_mtime_ns, int))
d = os.stat("d")
print(stat.S_ISDIR(d.st_mode), stat.S_ISREG(d.st_mode), stat.S_IFMT(d.st_mode) == stat.S_IFDIR)
l = os.lstat("f.txt")
print(l.st_size, stat.S_ISREG(l.st_mode), l.st_mode == st.st_mode, l.st_ino == st.st_ino)
with open("f.txt", "a", encoding="utf-8") as f:
    f.write("\u00e9")
print(os.stat("f.txt").st_size, os.stat("./d/../f.txt").st_size)
print(stat.S_ISDIR(os.stat(".").st_mode), stat.S_ISDIR(os.stat("d/").st_mode))
with open("empty", "wb"):
    pass
print(os.stat("empty").st_size, os.stat("f.txt", follow_symlinks=False).st_size)
print(st.st_ino == os.stat("f.txt").st_ino, st.st_dev == d.st_dev, st.st_ino != d.st_ino)
