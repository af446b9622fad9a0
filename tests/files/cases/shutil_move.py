# shutil.move renames files and directories, moves into an existing directory, and returns the destination.
import os
import shutil

def write(name, text):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    with open(name, "w", encoding="utf-8") as f:
        f.write(text)

write("a.txt", "A")
write("b.txt", "B")
write("tree/inner/c.txt", "C")
os.mkdir("box")
print(shutil.move("a.txt", "renamed.txt"))
print(shutil.move("renamed.txt", "box"))
print(shutil.move("b.txt", "box/b2.txt"))
print(sorted(os.listdir(".")), sorted(os.listdir("box")))
write("c.txt", "new C")
print(shutil.move("c.txt", "box/b2.txt"))
with open("box/b2.txt", encoding="utf-8") as f:
    print(f.read())
print(shutil.move("tree", "box"))
print(shutil.move("box", "crate"))
for root, dirs, files in sorted(os.walk(".")):
    print(root, sorted(dirs), sorted(files))
write("dup.txt", "D")
write("crate/dup.txt", "existing")
try:
    shutil.move("dup.txt", "crate")
except shutil.Error as e:
    print(type(e).__name__, isinstance(e, OSError), e)
try:
    shutil.move("missing.txt", "x")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.filename)
