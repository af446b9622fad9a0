# A 1 MiB binary file and a multi-line text file written in chunks, read back whole and in pieces.
import os

block = bytes(range(256)) * 16  # 4 KiB
with open("big.bin", "wb") as f:
    for i in range(256):
        f.write(block)
print(os.path.getsize("big.bin"), os.stat("big.bin").st_size == 1 << 20)
with open("big.bin", "rb") as f:
    data = f.read()
print(len(data), data == block * 256, data[:4], data[-4:])
chunks = 0
with open("big.bin", "rb") as f:
    while chunk := f.read(65536):
        chunks += 1
        assert chunk == block * 16
print(chunks)
with open("big.bin", "rb") as f:
    f.seek(1_000_000)
    print(f.read(4), f.tell(), f.seek(-1, 2), f.read())
line = "x" * 99 + "\n"
with open("big.txt", "w", encoding="utf-8") as f:
    f.write(line * 10_500)
with open("big.txt", encoding="utf-8") as f:
    lines = f.readlines()
print(len(lines), all(l == line for l in lines), os.path.getsize("big.txt"))
with open("big.txt", encoding="utf-8") as f:
    count = sum(1 for _ in f)
print(count)
with open("big.bin", "r+b") as f:
    f.truncate(1000)
print(os.path.getsize("big.bin"))
