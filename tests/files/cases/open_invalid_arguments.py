# open() rejects bad mode/encoding/newline/buffering combinations with ValueError; some checks come only
# after the file was opened (so a 'w' file is already created), as in CPython's io.open.
import os

attempts = [
    dict(mode="rw"),
    dict(mode="z"),
    dict(mode="rr"),
    dict(mode="rtb"),
    dict(mode="rb", encoding="utf-8"),
    dict(mode="rb", errors="strict"),
    dict(mode="rb", newline=""),
    dict(mode="w", newline="x"),
    dict(mode="w", buffering=0),
    dict(mode="rU"),
    dict(mode="+"),
]
for kwargs in attempts:
    try:
        open("never.txt", **kwargs)
    except ValueError as e:
        print(kwargs, type(e).__name__, e, os.listdir("."))
    if os.path.exists("never.txt"):
        os.remove("never.txt")
try:
    open("never.txt", 5)
except TypeError as e:
    print(type(e).__name__, e)
try:
    open(None)
except TypeError as e:
    print(type(e).__name__, e)
print(os.listdir("."))
