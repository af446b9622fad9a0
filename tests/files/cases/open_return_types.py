# The object open() returns depends on the mode and buffering, as in CPython's io stack.
import io

with open("f", "w", encoding="utf-8") as f:
    f.write("x")
cases = [("r", -1), ("w", -1), ("rb", -1), ("wb", -1), ("ab", -1), ("r+b", -1), ("w+b", -1),
         ("rb", 0), ("wb", 0), ("r+b", 0), ("r+", -1)]
for mode, buffering in cases:
    with open("f", mode, buffering=buffering) as f:
        print(mode, buffering, type(f).__name__, isinstance(f, io.IOBase),
              isinstance(f, io.TextIOBase), isinstance(f, io.BufferedIOBase), isinstance(f, io.RawIOBase))
with open("f", encoding="utf-8") as f:
    print(type(f.buffer).__name__, type(f.buffer.raw).__name__, f.buffer.raw.mode)
with open("f", "rb") as f:
    print(type(f.raw).__name__, f.raw.mode, f.raw.name)
print(io.open is open, io.TextIOWrapper.__name__, io.FileIO.__name__)
