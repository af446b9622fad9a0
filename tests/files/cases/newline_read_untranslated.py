# newline='' reads lines ending in \n, \r or \r\n but returns them untranslated.
with open("mixed", "wb") as f:
    f.write(b"one\r\ntwo\rthree\nfour\r")

with open("mixed", encoding="utf-8", newline="") as f:
    print(repr(f.read()))
with open("mixed", encoding="utf-8", newline="") as f:
    print(f.readlines())
with open("mixed", encoding="utf-8", newline="") as f:
    print([line for line in f], repr(f.newlines))
with open("mixed", encoding="utf-8", newline="") as f:
    print(repr(f.readline()), repr(f.readline(2)), repr(f.readline()))
