# TemporaryDirectory: a fresh empty directory that is removed, contents and all, when the block ends.
import os
import tempfile

with tempfile.TemporaryDirectory() as path:
    print(os.path.isdir(path), os.path.isabs(path), os.listdir(path), os.path.basename(path).startswith("tmp"))
    print(os.path.dirname(path) == tempfile.gettempdir())
    os.makedirs(os.path.join(path, "a", "b"))
    with open(os.path.join(path, "a", "b", "f.txt"), "w", encoding="utf-8") as f:
        f.write("inside")
    print(sorted(os.listdir(path)))
print(os.path.exists(path))

holder = tempfile.TemporaryDirectory(prefix="pre_", suffix="_suf")
name = os.path.basename(holder.name)
print(name.startswith("pre_"), name.endswith("_suf"), os.path.isdir(holder.name))
holder.cleanup()
print(os.path.exists(holder.name))
holder.cleanup()

with tempfile.TemporaryDirectory(dir=".") as local:
    print(os.path.dirname(os.path.abspath(local)) == os.getcwd(), len(os.listdir(".")))
    os.chdir(local)
    with open("x", "w", encoding="utf-8") as f:
        f.write("x")
    os.chdir("..")
print(os.listdir("."), os.path.isdir(tempfile.gettempdir()), isinstance(tempfile.gettempdir(), str))
