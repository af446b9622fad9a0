# writelines() adds no newlines; print(..., file=f) honours sep and end; write() returns the count.
with open("out.txt", "w", encoding="utf-8") as f:
    print(f.writelines(["a", "b\n", "c\n"]))
    f.writelines(line.upper() for line in ["x\n", "y\n"])
    f.writelines([])
    print(1, 2, 3, file=f)
    print("p", "q", sep="-", end="!\n", file=f)
    print(file=f)
    print(f.write(""), f.write("tail"))
with open("out.txt", encoding="utf-8") as f:
    print(repr(f.read()))

with open("out.bin", "wb") as f:
    f.writelines([b"12", bytearray(b"34"), memoryview(b"56")])
    print(f.write(b"7"), f.tell())
with open("out.bin", "rb") as f:
    print(f.read())
try:
    with open("out.txt", "w", encoding="utf-8") as f:
        f.writelines(["ok", 5])
except TypeError as e:
    print(type(e).__name__)  # the message is the VM's own _io wording (docs/files.md)
with open("out.txt", encoding="utf-8") as f:
    print(repr(f.read()))
