# newline='\n', '\r' or '\r\n' when reading: only that sequence ends a line, and nothing is translated.
with open("mixed", "wb") as f:
    f.write(b"one\r\ntwo\rthree\nfour\r\n")

for newline in ("\n", "\r", "\r\n"):
    with open("mixed", encoding="utf-8", newline=newline) as f:
        print(repr(newline), f.readlines(), repr(f.newlines))
    with open("mixed", encoding="utf-8", newline=newline) as f:
        print(repr(newline), repr(f.read()))
