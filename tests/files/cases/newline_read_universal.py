# newline=None (the default) when reading: \r\n and \r become \n; .newlines records the kinds seen.
samples = {
    "lf": b"a\nb\n",
    "crlf": b"a\r\nb\r\n",
    "cr": b"a\rb\r",
    "mixed": b"one\r\ntwo\rthree\nfour",
    "cr_lf_split": b"x\r" + b"\ny\r",
}
for name, data in samples.items():
    with open(name, "wb") as f:
        f.write(data)
    with open(name, encoding="utf-8") as f:
        print(name, repr(f.newlines), repr(f.read()), repr(f.newlines))
    with open(name, encoding="utf-8", newline=None) as f:
        print(name, f.readlines())

with open("mixed", encoding="utf-8") as f:
    print(repr(f.readline()), repr(f.readline()), repr(f.readline()), repr(f.readline()), repr(f.readline()))
