# mkdir/makedirs failures: existing path (FileExistsError), missing parent (FileNotFoundError), file in the way.
import os

os.mkdir("d")
with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")

attempts = [
    ("mkdir d", lambda: os.mkdir("d")),
    ("mkdir f.txt", lambda: os.mkdir("f.txt")),
    ("mkdir missing/sub", lambda: os.mkdir("missing/sub")),
    ("mkdir f.txt/sub", lambda: os.mkdir("f.txt/sub")),
    ("makedirs d", lambda: os.makedirs("d")),
    ("makedirs f.txt exist_ok", lambda: os.makedirs("f.txt", exist_ok=True)),
    ("makedirs f.txt/a/b", lambda: os.makedirs("f.txt/a/b")),
    ("mkdir empty", lambda: os.mkdir("")),
]
for label, call in attempts:
    try:
        call()
        print(label, "ok")
    except OSError as e:
        print(label, type(e).__name__, e.errno, e.strerror, repr(e.filename))
os.makedirs("d", exist_ok=True)
print(sorted(os.listdir(".")))
