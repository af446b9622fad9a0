# Match groups by name and by number, through group() and m[...]: names are turned into numbers in native code in
# the sandbox; results and errors are CPython's.
import re

m = re.search(r"(?P<ts>\d+)-(?P<level>[A-Z]+)(?P<tail>x)?(y)?", "at 2024-ERROR now")
print(m.group(), m.group(0), m.group(1), m.group("ts"), m.group("level"), m.group("tail"), m.group(4))
print(m.group("ts", 2, "tail"), m.group(0, "level"), m["ts"], m[2], m["tail"], m[0])
print(m.start("level"), m.end("ts"), m.span("level"), m.groupdict(), m.groups())
for bad in ("nope", 9, -1, 1.5, None, b"ts", "TS"):
    for ask in (lambda g: m.group(g), lambda g: m[g], lambda g: m.group(1, g)):
        try:
            print(repr(ask(bad)))
        except (IndexError, TypeError) as error:
            print(type(error).__name__, error)
try:
    m.group(group=1)
except TypeError as error:
    print("TypeError:", error)
for call in (lambda: re.Match.group(m, "ts"), lambda: re.Match.group(m)):
    try:
        print(call())
    except TypeError as error:
        print("TypeError:", error)

class Name(str):
    pass
print(m.group(Name("ts")), m[Name("level")], m.group(True), m[False])

# Bytes patterns and names reused across patterns.
b = re.match(rb"(?P<key>\w+)=(?P<value>\w*)", b"mode=fast")
print(b.group("key"), b["value"], b.group("key", "value"))
for pattern in (r"(?P<a>x)(?P<b>y)", r"(?P<b>x)(?P<a>y)"):
    found = re.fullmatch(pattern, "xy")
    print(found.group("a"), found["b"], found.lastgroup)

# The common loop: named groups of every match.
log = "\n".join(f"2024-01-{d:02} INFO INC-{d * 7:05} user=u{d}" for d in range(1, 30))
ids = [m.group("id") for m in re.finditer(r"^(?P<ts>\S+) (?P<level>[A-Z]+) (?P<id>INC-\d{5})", log, re.M)]
users = [m["user"] for m in re.finditer(r"user=(?P<user>\w+)", log)]
print(ids[:3], ids[-1], users[:3], len(ids), len(users))
