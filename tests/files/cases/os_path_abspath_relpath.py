# abspath/realpath/relpath against the current directory, plus the pure join/split/normpath helpers.
import os

cwd = os.getcwd()
os.makedirs("a/b")
for path in ("x.txt", "a/b", "./a/../x", "", ".", "a/b/../../..", "a//b/"):
    absolute = os.path.abspath(path)
    print(repr(path), os.path.relpath(absolute, cwd), absolute.startswith(cwd), os.path.isabs(absolute))
print(os.path.abspath("a"), os.path.realpath("a/b/.."))
print(os.path.relpath("a/b", "a"), os.path.relpath("a", "a/b"), os.path.relpath("a/b"), os.path.relpath("."))
os.chdir("a")
print(os.path.relpath(os.path.abspath("b"), cwd), os.path.abspath("..") == cwd)
print(os.path.relpath(cwd), os.path.realpath("b") == os.path.join(cwd, "a", "b"))
os.chdir(cwd)
print(os.path.join("a", "b", "c.txt"), os.path.join("a/", "/abs", "c"), os.path.join("", "x"), os.path.join("a", ""))
print(os.path.split("a/b/c.txt"), os.path.split("c.txt"), os.path.split("a/b/"))
print(os.path.splitext("archive.tar.gz"), os.path.splitext(".bashrc"), os.path.splitext("a.b/c"))
print(os.path.basename("a/b/c.txt"), os.path.dirname("a/b/c.txt"), os.path.basename("a/b/"))
print(os.path.normpath("a//b/./c/../d/"), os.path.normpath(""), os.path.normpath("../x/.."))
print(os.path.commonpath(["a/b/c", "a/b/d", "a/bc"]), os.path.commonprefix(["a/b/c", "a/bc"]))
