# io.open is the built-in open; io.TextIOWrapper can wrap a binary file object opened on the filesystem.
import io

print(io.open is open)
with io.open("f.txt", "w", encoding="utf-8") as f:
    f.write("\u00e9l\u00e8ve\nsecond\n")
with io.open("f.txt", "rb") as raw:
    text = io.TextIOWrapper(raw, encoding="utf-8")
    print(ascii(text.readline()), text.encoding, text.buffer is raw)
    print(repr(text.read()))
    text.detach()
print(raw.closed)
with open("f.txt", "rb") as raw:
    with io.TextIOWrapper(raw, encoding="latin-1", newline="") as text:
        print(ascii(text.read()))
    print(raw.closed)
with io.FileIO("g.bin", "w") as raw:
    print(raw.write(b"raw bytes"), raw.mode, raw.name, raw.closefd)
with io.FileIO("g.bin") as raw:
    print(raw.read(), raw.mode, raw.readable(), raw.writable())
with io.BufferedReader(io.FileIO("g.bin")) as buffered:
    print(buffered.read(3), buffered.peek(1)[:1], buffered.read())
with io.open("g.bin", "rb") as f:
    buf = bytearray(4)
    print(f.readinto(buf), buf, isinstance(f, io.BufferedReader))
