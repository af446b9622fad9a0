# Mode 'a+': reads anywhere, but writes always land at the end of the file.
with open("log.txt", "w", encoding="utf-8") as f:
    f.write("alpha\nbeta\n")

with open("log.txt", "a+", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable(), f.tell())
    print(repr(f.read()))
    f.seek(0)
    print(repr(f.readline()))
    f.write("gamma\n")
    # f.tell() here: CPython says 17 (the end), the VM's buffered layer 12 (docs/files.md, known differences).
    f.seek(0)
    print(repr(f.read()))

with open("new.txt", "a+", encoding="utf-8") as f:
    print(f.tell(), repr(f.read()))
    f.write("x")
    f.seek(0)
    print(repr(f.read()))
