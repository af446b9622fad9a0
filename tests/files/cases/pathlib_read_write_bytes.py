# Path.write_bytes accepts any bytes-like object and returns the byte count; read_bytes returns bytes.
from pathlib import Path

p = Path("data.bin")
print(p.write_bytes(b"\x00\x01\x02\xff"))
print(p.read_bytes(), type(p.read_bytes()).__name__)
print(p.write_bytes(bytearray(b"abc")), p.read_bytes())
print(p.write_bytes(memoryview(b"memory")[2:]), p.read_bytes())
print(p.write_bytes(b""), p.read_bytes(), p.stat().st_size)
try:
    p.write_bytes("text")
except TypeError as e:
    print(type(e).__name__, e)
big = bytes(range(256)) * 100
print(p.write_bytes(big), p.read_bytes() == big, p.stat().st_size)
with p.open("rb") as f:
    print(f.read(4), f.mode)
with p.open("ab") as f:
    f.write(b"END")
print(p.read_bytes()[-5:])
try:
    Path("nodir/x.bin").write_bytes(b"x")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.filename)
