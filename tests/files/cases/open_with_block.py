# `with open(...)` closes the file on normal exit and when an exception escapes; __enter__ returns the file.
with open("a.txt", "w", encoding="utf-8") as f:
    entered = f.__enter__()
    print(entered is f, f.closed)
    f.write("data")
print(f.closed)

try:
    with open("a.txt", encoding="utf-8") as g:
        print(g.read())
        raise KeyError("boom")
except KeyError as e:
    print("caught", e, g.closed)

with open("a.txt", encoding="utf-8") as src, open("b.txt", "w", encoding="utf-8") as dst:
    dst.write(src.read().upper())
print(src.closed, dst.closed)
with open("b.txt", encoding="utf-8") as f:
    print(f.read())

f = open("b.txt", encoding="utf-8")
f.close()
f.close()
print(f.closed)
try:
    with f:
        pass
except ValueError as e:
    print(type(e).__name__)  # the message is the VM's own _io wording (docs/files.md)
