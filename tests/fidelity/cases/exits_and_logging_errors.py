# exit(), quit() and sys.exit() raise what CPython raises; math.log with base 1 divides by zero; a log call whose
# arguments do not fit its format prints "--- Logging error ---" and the cell goes on (it raised IndexError).
import contextlib
import io
import logging
import math
import sys

for stop in (lambda: exit(), lambda: quit(3), lambda: sys.exit(), lambda: sys.exit("bye"), lambda: sys.exit(None)):
    try:
        stop()
    except SystemExit as error:
        print(repr(error), error.args, repr(error.code))
print(repr(exit), repr(quit), callable(exit))
try:
    sys.exit(1, 2)
except TypeError as error:
    print("TypeError:", error)

for x, base in [(1, 1), (8, 2), (10, 1.0), (0, 1)]:
    try:
        print(math.log(x, base))
    except (ValueError, ZeroDivisionError) as error:
        print(type(error).__name__)

captured = io.StringIO()
with contextlib.redirect_stderr(captured):
    logging.warning("count %d", "x")
    logging.error("rows", 3)
lines = captured.getvalue().splitlines()
print(lines[0], [line for line in lines if line.startswith(("Message", "Arguments", "TypeError"))])
print("continued")
