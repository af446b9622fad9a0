# utf-8-sig writes a BOM and strips it on reading; plain utf-8 keeps the BOM as U+FEFF.
with open("s.txt", "w", encoding="utf-8-sig") as f:
    f.write("key,value\n")
with open("s.txt", "rb") as f:
    print(f.read())
with open("s.txt", encoding="utf-8-sig") as f:
    print(ascii(f.read()))
with open("s.txt", encoding="utf-8") as f:
    print(ascii(f.read()))

with open("plain.txt", "w", encoding="utf-8") as f:
    f.write("no bom")
with open("plain.txt", encoding="utf-8-sig") as f:
    print(ascii(f.read()))

with open("s.txt", "a", encoding="utf-8-sig") as f:
    f.write("more\n")
with open("s.txt", "rb") as f:
    print(f.read())
