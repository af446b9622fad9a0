# os.chdir changes what relative paths mean; os.getcwd follows (printed as /case, the harness's start dir).
import os

start = os.getcwd()
print(start, os.path.isabs(start))
os.makedirs("a/b")
with open("a/b/deep.txt", "w", encoding="utf-8") as f:
    f.write("deep")
print(os.chdir("a"))
print(os.getcwd(), os.path.relpath(os.getcwd(), start), os.listdir())
os.chdir("b")
with open("deep.txt", encoding="utf-8") as f:
    print(f.read())
with open("../sibling.txt", "w", encoding="utf-8") as f:
    f.write("made from b")
os.chdir("..")
print(os.path.relpath(os.getcwd(), start), sorted(os.listdir()))
os.chdir("./b/../..")
print(os.getcwd() == start, sorted(os.listdir()))
os.chdir(os.path.join(start, "a", "b"))
print(os.path.relpath(os.getcwd(), start), os.path.abspath("x") == os.path.join(start, "a", "b", "x"))
os.chdir(start)
os.chdir("a/b/")
print(os.getcwd().endswith("/a/b"), os.getcwd() == os.path.join(start, "a", "b"))
os.chdir(start)
print(os.getcwd(), os.path.exists("a/sibling.txt"))
