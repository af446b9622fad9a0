# os.rename and os.replace move files and directories, overwriting an existing destination file.
import os

def write(name, text):
    with open(name, "w", encoding="utf-8") as f:
        f.write(text)

def read(name):
    with open(name, encoding="utf-8") as f:
        return f.read()

write("a.txt", "A")
write("b.txt", "B")
os.mkdir("dir")
os.mkdir("empty_target")
print(os.rename("a.txt", "renamed.txt"), sorted(os.listdir(".")))
os.rename("renamed.txt", "dir/moved.txt")
print(os.listdir("dir"), read("dir/moved.txt"))
print(os.replace("b.txt", "dir/moved.txt"), read("dir/moved.txt"), os.path.exists("b.txt"))
write("c.txt", "C")
os.rename("c.txt", "dir/moved.txt")
print(read("dir/moved.txt"))
os.rename("dir", "folder")
print(sorted(os.listdir(".")), os.listdir("folder"))
os.rename("folder", "empty_target")
print(sorted(os.listdir(".")), os.listdir("empty_target"))
os.replace("empty_target", "final")
os.rename("final/moved.txt", "final/moved.txt")
print(sorted(os.listdir(".")), os.listdir("final"))
write("x", "1")
os.rename("x", "final/../y")
print(sorted(os.listdir(".")))
