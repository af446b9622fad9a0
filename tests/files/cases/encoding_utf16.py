# UTF-16 writes a byte order mark once; -le/-be variants have none; reading strips the BOM.
import os

with open("a.txt", "w", encoding="utf-16") as f:
    f.write("hi")
    f.write("\u00e9\n")
with open("a.txt", "rb") as f:
    print(f.read())
with open("a.txt", encoding="utf-16") as f:
    print(ascii(f.read()))

for enc in ("utf-16-le", "utf-16-be", "utf-32-le"):
    with open("b.txt", "w", encoding=enc) as f:
        f.write("A\u20ac")
    with open("b.txt", "rb") as f:
        print(enc, f.read(), os.path.getsize("b.txt"))
    with open("b.txt", encoding=enc) as f:
        print(ascii(f.read()))

with open("odd.bin", "wb") as f:
    f.write(b"\xff\xfeA\x00B")
try:
    with open("odd.bin", encoding="utf-16") as f:
        f.read()
except UnicodeDecodeError as e:
    print(type(e).__name__, e.reason)  # e.encoding: the VM's codec names it 'utf-16' (docs/files.md)
