# Binary mode never translates line endings; readline() splits only on b'\n'.
with open("data.bin", "wb") as f:
    f.write(b"one\r\ntwo\rthree\nfour")

with open("data.bin", "rb") as f:
    print(f.readlines())
with open("data.bin", "rb") as f:
    print(f.readline(), f.readline(), f.readline(), f.readline())
with open("data.bin", "rb") as f:
    print([line for line in f])
with open("data.bin", "rb") as f:
    print(f.readline(2), f.readline(100), f.readlines(1))
with open("data.bin", "rb") as f:
    print(f.read().splitlines())
