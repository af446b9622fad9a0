# Writing: newline=None and '' keep \n on POSIX, '\r\n' and '\r' translate every \n; \r is never touched.
text = "a\nb\r\nc\rd\n"
for newline in (None, "", "\n", "\r\n", "\r"):
    with open("out.txt", "w", encoding="utf-8", newline=newline) as f:
        print(repr(newline), f.write(text), end=" ")
    with open("out.txt", "rb") as f:
        print(f.read())

with open("lines.txt", "w", encoding="utf-8", newline="\r\n") as f:
    f.writelines(["x\n", "y\n"])
    print("z", file=f)
with open("lines.txt", "rb") as f:
    print(f.read())
with open("lines.txt", encoding="utf-8") as f:
    print(f.readlines(), repr(f.newlines))
