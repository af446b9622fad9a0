# Undecodable bytes: strict raises UnicodeDecodeError; replace, ignore, backslashreplace, surrogateescape.
with open("bad.txt", "wb") as f:
    f.write(b"ok \xff\xfe end \xe9t\xc3\xa9\n")

try:
    with open("bad.txt", encoding="utf-8") as f:
        f.read()
except UnicodeDecodeError as e:
    print(type(e).__name__, isinstance(e, ValueError), e.encoding, e.start, e.end, e.reason)
    print(e)

for errors in ("replace", "ignore", "backslashreplace", "surrogateescape"):
    with open("bad.txt", encoding="utf-8", errors=errors) as f:
        print(errors, ascii(f.read()), f.errors)

with open("bad.txt", encoding="ascii", errors="replace") as f:
    print(ascii(f.read()))
try:
    with open("bad.txt", encoding="ascii") as f:
        f.readline()
except UnicodeDecodeError as e:
    print(e)
with open("bad.txt", encoding="utf-8", errors="surrogateescape") as f:
    text = f.read()
with open("copy.txt", "w", encoding="utf-8", errors="surrogateescape") as f:
    f.write(text)
with open("copy.txt", "rb") as f, open("bad.txt", "rb") as g:
    print(f.read() == g.read())
