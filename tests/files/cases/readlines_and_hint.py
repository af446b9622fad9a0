# readlines() with and without a size hint, and on an empty file and a file without a final newline.
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("a\nbb\nccc\ndddd")
with open("empty.txt", "w", encoding="utf-8"):
    pass

with open("f.txt", encoding="utf-8") as f:
    print(f.readlines())
for hint in (-1, 0, 1, 2, 3, 5, 100):
    with open("f.txt", encoding="utf-8") as f:
        print(hint, f.readlines(hint), repr(f.read()))
with open("f.txt", "rb") as f:
    print(f.readlines(4), f.readlines())
with open("empty.txt", encoding="utf-8") as f:
    print(f.readlines(), repr(f.read()), repr(f.readline()))
with open("f.txt", encoding="utf-8") as f:
    f.readline()
    print(f.readlines())
