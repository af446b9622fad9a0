# os.walk(topdown=False): every directory is yielded after all of its subdirectories.
import os

os.makedirs("root/a/a1/a2")
os.makedirs("root/b")
for path in ("root/top.txt", "root/a/x.txt", "root/a/a1/y.txt", "root/a/a1/a2/z.txt", "root/b/w.txt"):
    with open(path, "w", encoding="utf-8") as f:
        f.write("data")

# Sibling subtrees come in directory-listing order, so only the children-first rule is checked.
walked = list(os.walk("root", topdown=False))
for root, dirnames, filenames in sorted(walked):
    print(root, sorted(dirnames), sorted(filenames))
order = [root for root, dirnames, filenames in walked]
print(order[-1], order.index("root/a/a1/a2") < order.index("root/a/a1") < order.index("root/a"))
print(all(order.index(os.path.join(r, d)) < order.index(r) for r, ds, fs in os.walk("root") for d in ds))

print([r for r, d, f in os.walk("root/a", topdown=False)])
for root, dirnames, filenames in os.walk("root", topdown=False):
    for name in filenames:
        os.remove(os.path.join(root, name))
    for name in dirnames:
        os.rmdir(os.path.join(root, name))
os.rmdir("root")
print(os.listdir("."))
