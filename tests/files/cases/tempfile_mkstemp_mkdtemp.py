# mkstemp returns an OS-level descriptor and a path; mkdtemp a new directory; both are the caller's to remove.
import os
import tempfile

fd, path = tempfile.mkstemp()
print(isinstance(fd, int), os.path.isabs(path), os.path.exists(path), os.path.getsize(path))
print(os.path.basename(path).startswith("tmp"), os.path.dirname(path) == tempfile.gettempdir())
os.close(fd)
with open(path, "w", encoding="utf-8") as f:
    f.write("through the path")
with open(path, encoding="utf-8") as f:
    print(f.read())
os.remove(path)
print(os.path.exists(path))

fd, path = tempfile.mkstemp(suffix=".csv", prefix="data_", dir=".")
os.close(fd)
print(os.path.basename(path).startswith("data_"), path.endswith(".csv"), len(os.listdir(".")))
os.remove(path)

d = tempfile.mkdtemp()
print(os.path.isdir(d), os.path.isabs(d), os.listdir(d), os.path.basename(d).startswith("tmp"))
os.rmdir(d)
d = tempfile.mkdtemp(prefix="work_", dir=".")
print(os.path.basename(d).startswith("work_"), len(os.listdir(".")), os.path.isdir(d))
os.rmdir(d)
names = {tempfile.mkdtemp(dir=".") for _ in range(20)}
print(len(names), len(os.listdir(".")))
for name in names:
    os.rmdir(name)
print(os.listdir("."))
