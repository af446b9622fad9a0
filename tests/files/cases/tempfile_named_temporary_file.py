# NamedTemporaryFile: a real file with a name, binary w+b by default, deleted on close unless delete=False.
import os
import tempfile

with tempfile.NamedTemporaryFile() as f:
    print(f.mode, os.path.isabs(f.name), os.path.exists(f.name), os.path.basename(f.name).startswith("tmp"))
    print(f.write(b"hello"), f.tell())
    f.flush()
    print(os.path.getsize(f.name))
    f.seek(0)
    print(f.read(), f.closed)
    name = f.name
print(f.closed, os.path.exists(name))

with tempfile.NamedTemporaryFile("w+", encoding="utf-8", suffix=".txt", prefix="note_") as f:
    base = os.path.basename(f.name)
    print(f.mode, f.encoding, base.startswith("note_"), base.endswith(".txt"))
    f.write("line 1\nline 2\n")
    f.seek(0)
    print(f.readlines())

f = tempfile.NamedTemporaryFile("w", encoding="utf-8", delete=False, dir=".")
f.write("kept")
f.close()
print(os.path.exists(f.name), os.path.dirname(os.path.abspath(f.name)) == os.getcwd())
with open(f.name, encoding="utf-8") as g:
    print(g.read())
os.remove(f.name)
print(os.listdir("."))
