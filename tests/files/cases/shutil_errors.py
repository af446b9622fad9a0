# shutil's own errors: SameFileError, copying onto a directory, copytree onto an existing directory.
import os
import shutil

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")
os.makedirs("d/sub")
attempts = [
    ("copyfile same", lambda: shutil.copyfile("f.txt", "f.txt")),
    ("copyfile same via path", lambda: shutil.copyfile("f.txt", "d/../f.txt")),
    ("copy same", lambda: shutil.copy("f.txt", ".")),
    ("copyfile onto dir", lambda: shutil.copyfile("f.txt", "d")),
    ("copyfile from dir", lambda: shutil.copyfile("d", "new.txt")),
    ("copyfile missing", lambda: shutil.copyfile("missing", "new.txt")),
    ("copyfile into missing dir", lambda: shutil.copyfile("f.txt", "nodir/new.txt")),
    ("copytree existing", lambda: shutil.copytree("d", "d")),
    ("copytree missing", lambda: shutil.copytree("missing", "elsewhere")),
    ("copytree file", lambda: shutil.copytree("f.txt", "elsewhere")),
    ("move into itself", lambda: shutil.move("d", "d/sub")),
]
for label, call in attempts:
    try:
        call()
        print(label, "ok")
    except (OSError, shutil.Error) as e:
        print(label, type(e).__name__, getattr(e, "errno", None), getattr(e, "filename", None))
        print("  ", e)
print(issubclass(shutil.SameFileError, shutil.Error), issubclass(shutil.Error, OSError))
print(sorted(os.listdir(".")))
