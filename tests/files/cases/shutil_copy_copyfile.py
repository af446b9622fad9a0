# shutil.copyfile copies contents to a file path; shutil.copy also accepts a directory target; both return dst.
import os
import shutil

with open("src.txt", "w", encoding="utf-8") as f:
    f.write("payload\n" * 3)
os.mkdir("dest")
print(shutil.copyfile("src.txt", "copy1.txt"))
print(shutil.copy("src.txt", "copy2.txt"))
print(shutil.copy("src.txt", "dest"))
print(shutil.copy("src.txt", "dest/"))
with open("copy1.txt", "w", encoding="utf-8") as f:
    f.write("old")
print(shutil.copyfile("src.txt", "copy1.txt"))
for name in ("copy1.txt", "copy2.txt", "dest/src.txt"):
    with open(name, encoding="utf-8") as f:
        print(name, f.read() == "payload\n" * 3, os.path.getsize(name))
print(sorted(os.listdir(".")), os.listdir("dest"))
with open("src.txt", "rb") as src, open("stream.bin", "wb") as dst:
    print(shutil.copyfileobj(src, dst, 4))
print(os.path.getsize("stream.bin"))
with open("big.bin", "wb") as f:
    f.write(bytes(range(256)) * 1000)
shutil.copyfile("big.bin", "big2.bin")
with open("big.bin", "rb") as a, open("big2.bin", "rb") as b:
    print(a.read() == b.read(), os.path.getsize("big2.bin"))
