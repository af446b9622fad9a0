# Mode 'a': creates the file if needed; every write goes to the end, even after a seek.
import os

with open("log.txt", "a", encoding="utf-8") as f:
    print(f.mode, f.readable(), f.writable(), f.tell())
    f.write("one\n")
with open("log.txt", "a", encoding="utf-8") as f:
    print(f.tell())
    f.write("two\n")
    f.seek(0)
    f.write("three\n")
    print(f.tell())
with open("log.txt", encoding="utf-8") as f:
    print(repr(f.read()))

with open("log.txt", "a", encoding="utf-8") as f:
    try:
        f.read()
    except Exception as e:
        print(type(e).__name__, e)
print(os.path.getsize("log.txt"))
