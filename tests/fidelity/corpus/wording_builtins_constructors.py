# Cleaning scraped values: probing int/float/str/bytes/bool constructors' errors before writing a parser.
# %% helper
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

raw_prices = ["100", "1,200", " 35 ", "n/a", "12.50", ""]
print(len(raw_prices), "raw values")

# %% first attempt: int() everything
prices = [int(p) for p in raw_prices]
print(prices)

# %% int() failures one by one
for p in raw_prices:
    show(lambda: int(p))

# %% int() with bases and odd types
show(lambda: int("abc"))
show(lambda: int("12", 1))
show(lambda: int("12", 37))
show(lambda: int(12, 10))
show(lambda: int([1]))
show(lambda: int(None))
show(lambda: int("z", 16))
show(lambda: int(float("nan")))
show(lambda: int(float("inf")))
show(lambda: int(x=1))
show(lambda: int("1", "2", 3))

# %% int() on text that almost looks numeric
show(lambda: int("42\n"))
show(lambda: int("4 2"))
show(lambda: int("0x1A"))
show(lambda: int("0x1A", 16))
show(lambda: int("0x1A", 0))
show(lambda: int("1_000"))
show(lambda: int("1e3"))
show(lambda: int(b"12"))
show(lambda: int(b"ab"))
show(lambda: int("-"))
show(lambda: int("   -7  "))
show(lambda: int(3.9))

# %% a tolerant parser
def parse_price(text: str) -> float | None:
    cleaned = text.strip().replace(",", "")
    try:
        return float(cleaned)
    except ValueError as e:
        print(f"  skip {text!r}: {e}")
        return None

parsed = [parse_price(p) for p in raw_prices]
print(parsed)
print(sum(v for v in parsed if v is not None))

# %% float() failures
show(lambda: float("abc"))
show(lambda: float(""))
show(lambda: float([1]))
show(lambda: float(None))
show(lambda: float("1,5"))
show(lambda: float(1, 2))
show(lambda: float("1e3x"))
show(lambda: float("$5"))
show(lambda: float("  nan "))
show(lambda: float("infinity"))
show(lambda: float("1_0.5"))
show(lambda: complex("1+"))
show(lambda: complex("a"))

# %% keyword arguments to float() and bool()
# differs: "got an unexpected keyword argument 'x'" instead of "float() takes no keyword arguments"
show(lambda: float(x=1))
show(lambda: bool(x=1))

# %% str() with encodings
show(lambda: str(b"caf\xc3\xa9", "utf-8"))
show(lambda: str(b"a", "nope"))
show(lambda: str(b"\xff", "utf-8"))
show(lambda: str("a", "utf-8"))
show(lambda: str(foo=1))

# %% str() with a non-str encoding
# differs: "Expected type 'str' but 'int' found." instead of "str() argument 'encoding' must be str, not int"
show(lambda: str(1, 2))

# %% str() with too many arguments
# differs: "Expected type 'str' but 'int' found." instead of "str expected at most 3 arguments, got 4"
show(lambda: str(1, 2, 3, 4))

# %% bytes() and friends
show(lambda: bytes("abc"))
show(lambda: bytes(-1))
show(lambda: bytes([256]))
show(lambda: bytes(["a"]))
show(lambda: bytes(1.5))
show(lambda: bytes("a", "nope"))
show(lambda: bytes(1, "utf-8"))
show(lambda: bytearray("abc"))
show(lambda: memoryview("abc"))

# %% other constructors
show(lambda: bool(1, 2))
show(lambda: object(1))
show(lambda: type(1, 2))
show(lambda: type("A", (), {}, 1))
show(lambda: frozenset(1))
show(lambda: vars(1))
show(lambda: dir(1, 2))
show(lambda: id())
show(lambda: ascii())
