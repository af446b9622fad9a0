# latin-1 maps every byte to one character: round trips, and decodes UTF-8 bytes into mojibake.
import os

text = "".join(chr(i) for i in range(160, 256))
with open("l.txt", "w", encoding="latin-1") as f:
    print(f.write(text), f.encoding)
print(os.path.getsize("l.txt"))
with open("l.txt", "rb") as f:
    raw = f.read()
print(raw[:8], raw == bytes(range(160, 256)))
with open("l.txt", encoding="latin-1") as f:
    print(f.read() == text)

with open("u.txt", "w", encoding="utf-8") as f:
    f.write("na\u00efve caf\u00e9")
with open("u.txt", encoding="latin-1") as f:
    print(ascii(f.read()))
with open("u.txt", encoding="iso-8859-1") as f:
    print(f.encoding, len(f.read()))
with open("all.bin", "wb") as f:
    f.write(bytes(range(256)))
with open("all.bin", encoding="latin-1", newline="") as f:
    data = f.read()
print(len(data), [ord(c) for c in data[:4]], ord(data[-1]))
