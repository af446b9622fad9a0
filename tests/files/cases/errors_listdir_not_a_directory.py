# Listing a file raises NotADirectoryError (errno 20); a missing directory FileNotFoundError.
import os

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")
calls = [
    ("listdir", lambda p: os.listdir(p)),
    ("scandir", lambda p: list(os.scandir(p))),
    ("chdir", lambda p: os.chdir(p)),
]
for name, call in calls:
    for target in ("f.txt", "missing", "f.txt/"):
        try:
            call(target)
        except OSError as e:
            print(name, target, type(e).__name__, e.errno, e.strerror, e.filename)
print(os.getcwd() == os.path.abspath("."), os.listdir())
