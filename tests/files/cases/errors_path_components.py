# A path through a regular file fails with NotADirectoryError; queries on such paths just answer False.
import os

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")
os.mkdir("d")
for path in ("f.txt/x", "f.txt/", "f.txt/.", "d/missing/x"):
    for label, call in (("open", lambda p: open(p)), ("stat", os.stat), ("open w", lambda p: open(p, "w"))):
        try:
            call(path)
            print(label, path, "ok")
        except OSError as e:
            print(label, path, type(e).__name__, e.errno, e.filename)
    print(path, os.path.exists(path), os.path.isfile(path), os.path.isdir(path))
print(os.path.isdir("d/"), os.path.isdir("d/."), os.path.exists("d/.."), os.path.isfile("./f.txt"))
print(os.path.exists("d//"), os.path.exists("./d/../f.txt"), os.path.exists("d/../missing/../f.txt"))
print(sorted(os.listdir(".")))
