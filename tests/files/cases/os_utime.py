# os.utime sets access and modification times exactly (seconds or nanoseconds); None means now.
import os
import time

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")
print(os.utime("f.txt", (1_000_000_000, 1_500_000_000)))
st = os.stat("f.txt")
print(st.st_atime, st.st_mtime, st.st_mtime_ns, os.path.getmtime("f.txt"))
os.utime("f.txt", ns=(1_600_000_000_250_000_000, 1_700_000_000_500_000_000))
st = os.stat("f.txt")
print(st.st_atime_ns, st.st_mtime_ns, st.st_mtime)
os.utime("f.txt", times=(12.5, 34.75))
print(os.stat("f.txt").st_mtime, os.path.getatime("f.txt"))
before = time.time()
os.utime("f.txt")
after = time.time()
mtime = os.stat("f.txt").st_mtime
print(before - 1 <= mtime <= after + 1)
os.mkdir("d")
os.utime("d", (0, 86400))
print(os.stat("d").st_mtime)
for call in (lambda: os.utime("missing", (1, 2)), lambda: os.utime("f.txt", (1, 2), ns=(1, 2)),
             lambda: os.utime("f.txt", (1,))):
    try:
        call()
    except (OSError, ValueError, TypeError) as e:
        # (CPython < 3.13 leaves filename unset on utime errors, so it is not printed.)
        print(type(e).__name__, getattr(e, "errno", None))
