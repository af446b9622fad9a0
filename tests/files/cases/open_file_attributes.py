# Attributes of file objects: name, mode, closed, encoding, errors, newlines, buffer, line_buffering.
from pathlib import Path

f = open("a.txt", "w", encoding="utf-8")
print(f.name, f.mode, f.closed, f.encoding, f.errors, f.newlines, f.line_buffering)
print(f.buffer.name, f.buffer.mode, f.isatty(), isinstance(f.fileno(), int))
f.close()
print(f.closed, f.name, f.mode)

with open("a.txt", encoding="latin-1", errors="replace") as f:
    print(f.encoding, f.errors, f.closed)
with open("a.txt", encoding="UTF8") as f:
    print(f.encoding)
with open(Path("a.txt"), "rb") as f:
    print(repr(f.name), f.mode, f.closed, hasattr(f, "encoding"))
with open("a.txt", "ab", buffering=0) as f:
    print(repr(f.name), f.mode, f.closefd)
with open("a.txt", "w", encoding="utf-8", newline="\r\n", errors="ignore") as f:
    print(f.errors, f.newlines, f.closed)
with open("a.txt", "w", encoding="utf-8", buffering=1) as f:
    print(f.line_buffering, f.write_through)
print(f.closed)
