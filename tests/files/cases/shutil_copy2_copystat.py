# shutil.copy2 also copies the modification time; copystat copies times between existing files.
import os
import shutil

with open("src.txt", "w", encoding="utf-8") as f:
    f.write("timed")
os.utime("src.txt", (1_000_000_000, 1_200_000_000))
print(shutil.copy2("src.txt", "dst.txt"))
print(os.stat("dst.txt").st_mtime, os.stat("dst.txt").st_size)
os.mkdir("folder")
print(shutil.copy2("src.txt", "folder"), os.stat("folder/src.txt").st_mtime)
print(shutil.copy("src.txt", "plain.txt"), os.stat("plain.txt").st_mtime != 1_200_000_000)
with open("other.txt", "w", encoding="utf-8") as f:
    f.write("other")
print(shutil.copystat("src.txt", "other.txt"), os.stat("other.txt").st_mtime)
with open("other.txt", encoding="utf-8") as f:
    print(f.read())
print(shutil.copymode("src.txt", "other.txt"), os.stat("other.txt").st_mode == os.stat("src.txt").st_mode)
