# Path.write_text returns the character count; read_text decodes; encoding/errors/newline are honoured.
from pathlib import Path

p = Path("notes.txt")
print(p.write_text("hello\nworld\n", encoding="utf-8"))
print(repr(p.read_text(encoding="utf-8")), p.stat().st_size)
print(p.write_text("caf\u00e9", encoding="latin-1"), p.stat().st_size)
print(ascii(p.read_text(encoding="latin-1")), ascii(p.read_text(encoding="utf-8", errors="replace")))
try:
    p.read_text(encoding="utf-8")
except UnicodeDecodeError as e:
    print(type(e).__name__, e.reason)
print(Path("crlf.txt").write_text("a\nb\n", encoding="utf-8", newline="\r\n"))
print(Path("crlf.txt").read_bytes(), repr(Path("crlf.txt").read_text(encoding="utf-8")))
print(p.write_text("", encoding="utf-8"), repr(p.read_text(encoding="utf-8")))
Path("sub").mkdir()
print((Path("sub") / "inner.txt").write_text("inside", encoding="utf-8"))
print(Path("sub/inner.txt").read_text(encoding="utf-8"))
try:
    Path("missing.txt").read_text(encoding="utf-8")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.strerror, e.filename)
try:
    Path("sub").read_text(encoding="utf-8")
except IsADirectoryError as e:
    print(type(e).__name__, e.errno, e.filename)
try:
    p.write_text(b"bytes")
except TypeError as e:
    print(type(e).__name__, e)
