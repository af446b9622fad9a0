# Building a text report: str.format / encode / center / zfill / % formatting / str operators, errors first.
# %% helper and rows
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

rows = [("Widget", 4, 3.5), ("Gadget", 12, 10.0), ("Café crème", 1, 2.25)]
for name, qty, price in rows:
    print("{:<12}|{:>4}|{:>8.2f}".format(name, qty, price))

# %% str.format mistakes
show(lambda: "{} {}".format(1))
show(lambda: "{0} {1}".format(1))
show(lambda: "{name}".format(nam=1))
show(lambda: "{".format())
show(lambda: "}".format())
show(lambda: "{0:d}".format("a"))
show(lambda: "{:d}".format(1.5))
show(lambda: "{} {0}".format(1, 2))
show(lambda: "{0} {}".format(1, 2))
show(lambda: "{a.b}".format(a=1))
show(lambda: "{a[0]}".format(a=1))
show(lambda: "{a[x]}".format(a={}))
show(lambda: "{!z}".format(1))
show(lambda: "{:>{w}}".format(1))
show(lambda: "{:>{w}}".format(1, w=5))

# %% a template with a missing field, uncaught
template = "{name}: {qty} units at ${price:.2f} (total ${total:.2f})"
for name, qty, price in rows:
    print(template.format(name=name, qty=qty, price=price))

# %% fix
for name, qty, price in rows:
    print(template.format(name=name, qty=qty, price=price, total=qty * price))

# %% encode
show(lambda: rows[2][0].encode("utf-8"))
show(lambda: "abc".encode("nope"))
show(lambda: "é".encode("ascii"))
show(lambda: "é".encode("ascii", "nope"))
show(lambda: "é".encode("ascii", "replace"))
show(lambda: "€".encode("latin-1"))

# %% encode with three positionals
# differs: "encode expected at most 2 arguments, got 3" instead of "encode() takes at most 2 arguments (3 given)"
show(lambda: "abc".encode("utf-8", "strict", 1))

# %% encode with a non-str encoding
# differs: "encode() argument must be str, not int" instead of "encode() argument 'encoding' must be str, not int"
show(lambda: "abc".encode(1))
show(lambda: "abc".encode(encoding=1))

# %% center / zfill / ljust
show(lambda: "abc".center())
show(lambda: "abc".center(10, "ab"))
show(lambda: "abc".center("10"))
show(lambda: "abc".center(1.5))
show(lambda: "abc".center(9, "*"))
show(lambda: "abc".zfill())
show(lambda: "abc".zfill("5"))
show(lambda: "abc".zfill(5, 6))
show(lambda: "-42".zfill(6))
show(lambda: "abc".ljust(5, ""))
show(lambda: "abc".rjust(5, "--"))

# %% center with an int fill character
# differs: "center() argument must be str, not int" instead of "The fill character must be a unicode character, not int"
show(lambda: "abc".center(10, 1))

# %% str operators
show(lambda: "a" + 1)
show(lambda: 1 + "a")
show(lambda: "a" * 1.5)
show(lambda: "a" * "b")
show(lambda: "a" - "b")
show(lambda: "x" * -1)
show(lambda: "x" * 2.0)
show(lambda: 2.0 * "x")
show(lambda: [1] * "2")
show(lambda: "total: " + 5)
show(lambda: 5 + "px")
show(lambda: "a" + None)

# %% printf-style formatting
show(lambda: "%d" % "a")
show(lambda: "%s %s" % ("a",))
show(lambda: "%s" % ("a", "b"))
show(lambda: "%z" % 1)
show(lambda: "%(x)s" % 1)
show(lambda: "%(x)s" % {})
show(lambda: "%d items" % "5")
show(lambda: "%.2f" % "3.5")
show(lambda: "%5.1f%%" % 12.345)

# %% a banner width computed as a float, uncaught
width = len(rows) * 10 / 2
print("=" * width)

# %% fix
width = len(rows) * 10 // 2
print("=" * width)
print("REPORT".center(width, "="))
