# Binary modes: rb wb ab xb r+b w+b a+b return and accept bytes; .mode is normalised.
import os

modes = ["wb", "rb", "ab", "r+b", "rb+", "w+b", "a+b", "ab+"]
for mode in modes:
    with open("data.bin", mode) as f:
        if f.writable():
            f.write(bytes([len(mode)]) + mode.encode())
        f.seek(0)
        data = f.read() if f.readable() else None
        print(mode, "->", f.mode, type(f).__name__, data)
print(os.path.getsize("data.bin"))

with open("made.bin", "xb") as f:
    print(f.mode, f.write(bytearray(b"\xff\xfe")), f.write(memoryview(b"mv")))
with open("made.bin", "rb") as f:
    data = f.read()
    print(type(data).__name__, data, list(data))
