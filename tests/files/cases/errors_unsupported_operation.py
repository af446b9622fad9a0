# Writing to a file opened for reading (and vice versa) raises io.UnsupportedOperation.
import io

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("content\n")
    for call in (f.read, f.readline, f.readlines):
        try:
            call()
        except io.UnsupportedOperation as e:
            print(call.__name__, type(e).__name__, e, isinstance(e, OSError), isinstance(e, ValueError), e.errno)

with open("f.txt", encoding="utf-8") as f:
    for call, arg in ((f.write, "x"), (f.writelines, ["x"]), (f.truncate, 0)):
        try:
            call(arg)
        except io.UnsupportedOperation as e:
            print(call.__name__, type(e).__name__, e)
    print(repr(f.read()))

with open("f.txt", "rb") as f:
    try:
        f.write(b"x")
    except OSError as e:
        print("rb write", type(e).__name__)  # the message is the VM's own _io wording (docs/files.md)
with open("f.txt", "ab") as f:
    try:
        f.read()
    except OSError as e:
        print("ab read", type(e).__name__)
with open("f.txt", "rb", buffering=0) as f:
    try:
        f.write(b"x")
    except OSError as e:
        print("raw write", type(e).__name__, e)
print(io.UnsupportedOperation.__mro__[1:3])
