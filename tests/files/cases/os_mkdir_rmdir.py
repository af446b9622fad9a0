# os.mkdir creates one level; os.rmdir removes an empty directory; both return None.
import os

print(os.mkdir("one"), os.listdir("."))
print(os.mkdir("one/two"), os.listdir("one"))
os.mkdir("./three/")
os.mkdir("one/../four", 0o700)
print(sorted(os.listdir(".")))
print(os.rmdir("one/two"), os.listdir("one"))
os.rmdir("three/")
os.rmdir("./four")
print(sorted(os.listdir(".")))
os.rmdir("one")
print(os.listdir("."), os.path.exists("one"))
for i in range(3):
    os.mkdir(f"again{i}")
    os.rmdir(f"again{i}")
os.mkdir("again0")
print(os.listdir("."), os.path.isdir("again0"))
