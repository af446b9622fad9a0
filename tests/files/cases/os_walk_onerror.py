# os.walk swallows errors unless onerror is given; onerror receives the OSError from listing a directory.
import os

errors = []
print(list(os.walk("missing", onerror=errors.append)))
for e in errors:
    print(type(e).__name__, e.errno, e.strerror, e.filename)

with open("plain.txt", "w", encoding="utf-8") as f:
    f.write("x")
errors.clear()
print(list(os.walk("plain.txt", onerror=errors.append)))
print([(type(e).__name__, e.errno, e.filename) for e in errors])

def stop(error):
    raise error
try:
    list(os.walk("missing/deeper", onerror=stop))
except FileNotFoundError as e:
    print("raised", e)

os.makedirs("tree/sub")
with open("tree/sub/file", "w", encoding="utf-8") as f:
    f.write("y")
print([(r, sorted(d), f) for r, d, f in os.walk("tree", onerror=stop)])
