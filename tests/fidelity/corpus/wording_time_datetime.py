# Normalising dates from a messy export: time and datetime argument errors and strptime mismatches.
# %% helper and raw dates
import time
import datetime as dt

def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

raw = ["2024-03-05", "05/03/2024", "2024-02-30", "March 5, 2024", "2024-13-01", "2024-03-05 extra"]
print(time.gmtime(86400 * 365)[:6])
print(time.strftime("%Y-%m-%d %H:%M", time.gmtime(1_700_000_000)))

# %% time functions that fail the same way
show(lambda: time.gmtime(1.5e20))
show(lambda: time.strptime("x", "%Y"))
show(lambda: time.sleep(-1))
show(lambda: time.gmtime(None)[0] > 2000)
show(lambda: time.strptime("2024-03-05", "%Y-%m-%d")[:3])

# %% time.gmtime with two arguments
# differs: "gmtime expected at most 1 argument, got 2" instead of "gmtime() takes at most 1 argument (2 given)"
show(lambda: time.gmtime(1, 2))

# %% time.gmtime with a str
# differs: "unexpected type str" instead of "'str' object cannot be interpreted as an integer"
show(lambda: time.gmtime("1"))

# %% time.strftime without arguments
# differs: "strftime expected at least 1 argument, got 0" instead of "strftime() takes at least 1 argument (0 given)"
show(lambda: time.strftime())

# %% time.strftime with a short tuple
# differs: "StructTimeData requires a 9-sequence (2-sequence given)" instead of "strftime(): illegal time tuple argument"
show(lambda: time.strftime("%Y", (1, 2)))

# %% time.strftime with an int format
# differs: "strftime() argument must be str, not int" instead of "strftime() argument 1 must be str, not int"
show(lambda: time.strftime(5))

# %% time.mktime with an int
# differs: "'int' object is not iterable" instead of "Tuple or struct_time argument required"
show(lambda: time.mktime(5))

# %% time.sleep with a str
# differs: "sleep() takes a number of seconds, got str" instead of "'str' object cannot be interpreted as an integer"
show(lambda: time.sleep("1"))

# %% strptime against one format
for s in raw:
    show(lambda: dt.datetime.strptime(s, "%Y-%m-%d").date())

# %% the same loop, uncaught
parsed = [dt.datetime.strptime(s, "%Y-%m-%d") for s in raw]

# %% more strptime mismatches
show(lambda: dt.datetime.strptime("2024-01-01", "%d/%m/%Y"))
show(lambda: dt.datetime.strptime("Jan 5 2024", "%b %d %Y"))
show(lambda: dt.datetime.strptime("Foo 5 2024", "%b %d %Y"))
show(lambda: dt.datetime.strptime("2024", "%Q"))
show(lambda: dt.datetime.strptime("2024-01-01", "%Y-%m-%d %"))
show(lambda: dt.datetime.strptime(20240101, "%Y%m%d"))
show(lambda: dt.datetime.strptime("25:00", "%H:%M"))
show(lambda: dt.datetime.strptime("March 5, 2024", "%B %d, %Y"))

# %% strptime of February 30th
show(lambda: dt.datetime.strptime("2024-02-30", "%Y-%m-%d"))

# %% strptime without a format
# differs: "strptime expected 2 arguments, got 1" instead of "strptime() takes exactly 2 arguments (1 given)"
show(lambda: dt.datetime.strptime("2024-01-01"))

# %% date constructors with out-of-range parts
show(lambda: dt.date(2024, 13, 1))
show(lambda: dt.datetime(2024, 1, 1, 25))

# %% date(2024, 2, 30)
show(lambda: dt.date(2024, 2, 30))

# %% year zero
show(lambda: dt.date(0, 1, 1))

# %% replace(month=13) and fromisoformat with hour 25
show(lambda: dt.date(2024, 1, 1).replace(month=13))
show(lambda: dt.datetime.fromisoformat("2024-01-01T25:00"))

# %% timedelta with an unknown unit
# differs: "timedelta() got an unexpected keyword argument 'fortnights'" instead of "__new__() got an unexpected keyword argument 'fortnights'"
show(lambda: dt.timedelta(weeks=1, fortnights=1))

# %% date errors that match
show(lambda: dt.date(2024, 1))
show(lambda: dt.date("2024", 1, 1))
show(lambda: dt.date.fromisoformat("2024-1-1"))
show(lambda: dt.date.fromisoformat("nope"))
show(lambda: dt.date.fromisoformat(20240101))
show(lambda: dt.timedelta(days="1"))
show(lambda: dt.date(2024, 1, 1) + 1)
show(lambda: dt.date(2024, 1, 1) - dt.datetime(2024, 1, 1))
show(lambda: dt.datetime(2024, 1, 1) < dt.date(2024, 1, 1))
show(lambda: dt.datetime(2024, 1, 1) - dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc))
show(lambda: dt.date.today(1))
show(lambda: dt.date(2024, 1, 1).strftime())
show(lambda: dt.date(2024, 1, 1).strftime(5))
show(lambda: dt.date(2024, 3, 5) - dt.date(2024, 1, 1))

# %% a multi-format parser
FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%B %d, %Y"]

def parse_date(s: str) -> dt.date | None:
    for fmt in FORMATS:
        try:
            return dt.datetime.strptime(s.strip(), fmt).date()
        except ValueError:
            continue
    return None

results = {s: parse_date(s) for s in raw}
for s, d in results.items():
    print(f"{s!r:22} -> {d.isoformat() if d else 'unparsed'}")
SUBMIT(parsed=sum(d is not None for d in results.values()), total=len(raw))
