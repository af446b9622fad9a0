# Iterating a file yields its lines; next() at EOF raises StopIteration; iter(f) is f.
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("one\ntwo\n\nfour")

with open("f.txt", encoding="utf-8") as f:
    print(iter(f) is f)
    for number, line in enumerate(f, 1):
        print(number, repr(line))
    try:
        next(f)
    except StopIteration:
        print("StopIteration")

with open("f.txt", encoding="utf-8") as f:
    print(next(f), end="")
    print(list(f))
with open("f.txt", encoding="utf-8") as f:
    print([line.rstrip("\n") for line in f if line.strip()])
with open("f.txt", encoding="utf-8") as f:
    print(sum(1 for _ in f), list(f))
with open("f.txt", "rb") as f:
    print(list(f), next(f, b"default"))
with open("f.txt", encoding="utf-8") as f:
    print(list(zip(f, "xyz")))
