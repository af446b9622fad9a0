# os.makedirs creates every missing level, returns None, and tolerates existing leaves with exist_ok=True.
import os

print(os.makedirs("a/b/c"))
print(os.path.isdir("a"), os.path.isdir("a/b"), os.path.isdir("a/b/c"))
print(os.makedirs("a/b/c", exist_ok=True))
os.makedirs("a/b/d/", exist_ok=False)
os.makedirs("./a/./b/e")
os.makedirs("a/b/../f")
os.makedirs("x//y///z")
for root, dirs, files in os.walk("."):
    dirs.sort()
    print(root, dirs)
try:
    os.makedirs("a/b/c")
except FileExistsError as e:
    print(type(e).__name__, e.errno, e.filename)
os.makedirs("a/b/c/new", 0o755)
print(os.listdir("a/b/c"))
