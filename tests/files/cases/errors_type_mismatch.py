# Writing str to a binary file or bytes to a text file raises TypeError; bad path types too (but
# os.listdir(None) lists the current directory).
import os

with open("b.bin", "wb") as f:
    try:
        f.write("text")
    except TypeError as e:
        print("binary", type(e).__name__, e)
with open("t.txt", "w", encoding="utf-8") as f:
    for value in (b"bytes", 42, None):
        try:
            f.write(value)
        except TypeError as e:
            print("text", type(e).__name__)  # the message is the VM's own _io wording (docs/files.md)
for bad in (3.5, ["a"], None):
    for name, call in (("stat", os.stat), ("listdir", os.listdir), ("mkdir", os.mkdir)):
        try:
            result = call(bad)
            print(name, type(bad).__name__, "accepted", sorted(result))
        except TypeError as e:
            print(name, type(bad).__name__, type(e).__name__)
try:
    os.path.join("a", 5)
except TypeError as e:
    print("join", type(e).__name__, e)
print(os.path.getsize("b.bin"), os.path.getsize("t.txt"))
