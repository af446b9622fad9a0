# UTF-8 text with non-ASCII characters: write() counts characters, the file holds the encoded bytes.
import os

text = "caf\u00e9 \u00fcber \u4e2d\u6587 \U0001f600\n"
with open("u.txt", "w", encoding="utf-8") as f:
    print(f.write(text))
print(os.path.getsize("u.txt"), len(text), len(text.encode("utf-8")))
with open("u.txt", encoding="utf-8") as f:
    back = f.read()
print(back == text, ascii(back))
with open("u.txt", "rb") as f:
    print(f.read())
with open("u.txt", encoding="utf-8") as f:
    print(ascii(f.read(4)), ascii(f.read(1)), ascii(f.read(6)))
with open("u.txt", encoding="UTF-8") as f:
    print(f.encoding, len(f.read()))
with open("u.txt", encoding="utf8") as f:
    print(f.encoding, ascii(f.readline()))
