# Decoding a binary record format: bytes methods, int.to_bytes/from_bytes, float.fromhex, arithmetic errors.
# %% helper and a packed record
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

record = bytes.fromhex("00 2a ff fe") + "héllo".encode("utf-8")
print(record, len(record))

# %% bytes method misuse
show(lambda: record.decode("nope"))
show(lambda: record.decode("utf-8"))
show(lambda: record.decode("ascii"))
show(lambda: record[4:].decode("utf-8"))
show(lambda: "b" + record)
show(lambda: record.split("a"))
show(lambda: record.replace("a", "b"))
show(lambda: b",".join(["a"]))
show(lambda: record.startswith("a"))
show(lambda: record.index(500))
show(lambda: bytes.fromhex("zz"))
show(lambda: record[50])
show(lambda: bytearray(b"a").append(256))
show(lambda: bytearray(b"a").append("a"))
show(lambda: b"%d" % b"a")

# %% bytes + str
show(lambda: record + "!")

# %% bytes.index of a missing subsequence
show(lambda: record.index(b"zz"))

# %% bytes.fromhex with an odd number of digits
show(lambda: bytes.fromhex("abc"))

# %% bytes.fromhex with an int
show(lambda: bytes.fromhex(5))

# %% bytes.decode with an int encoding
# differs: "decode() argument must be str, not int" instead of "decode() argument 'encoding' must be str, not int"
show(lambda: record.decode(1))

# %% int.to_bytes / int.from_bytes misuse
show(lambda: (1).to_bytes())
show(lambda: (256).to_bytes(1, "big"))
show(lambda: (-1).to_bytes(2, "big"))
show(lambda: (1).to_bytes(2, "middle"))
show(lambda: (1).to_bytes(-1, "big"))
show(lambda: (1).to_bytes("2", "big"))
show(lambda: (-1).to_bytes(2, "big", signed=True))
show(lambda: int.from_bytes())
show(lambda: int.from_bytes(b"ab", "middle"))
show(lambda: int.from_bytes(5, "big"))
show(lambda: int.from_bytes([256], "big"))
show(lambda: int.from_bytes(record[:2], "big"))
show(lambda: (5).bit_length(1))

# %% to_bytes with signed passed positionally
# differs: "to_bytes expected at most 2 arguments, got 3" instead of "to_bytes() takes at most 2 positional arguments (3 given)"
show(lambda: (1).to_bytes(2, "big", True))

# %% to_bytes with an unknown keyword
# differs: "to_bytes() got an unexpected keyword argument 'x'" instead of "to_bytes() takes at most 3 arguments (4 given)"
show(lambda: (1).to_bytes(2, "big", signed=True, x=1))

# %% int.from_bytes on a str
# differs: "can assign only bytes, buffers, or iterables of ints in range(0, 256)" instead of "cannot convert 'str' object to bytes"
show(lambda: int.from_bytes("ab", "big"))

# %% float.fromhex and friends
show(lambda: float.fromhex("0x1.8p1"))
show(lambda: float.fromhex("zz"))
show(lambda: float.fromhex(""))
show(lambda: float.fromhex("0x1p99999"))
show(lambda: (1.5).is_integer(1))
show(lambda: (1.5).as_integer_ratio(1))
show(lambda: float("inf").as_integer_ratio())
show(lambda: float("nan").as_integer_ratio())
show(lambda: (0.1).hex())

# %% float.fromhex with an int
# differs: "fromhex() argument must be str, not int" instead of "bad argument type for built-in operation"
show(lambda: float.fromhex(5))

# %% arithmetic type errors
show(lambda: 1 / 0)
show(lambda: int("9" * 5000))
show(lambda: str(10 ** 5000))
show(lambda: (-1) ** 0.5)
show(lambda: 1 << -1)
show(lambda: 1.5 << 1)
show(lambda: ~1.5)
show(lambda: -"a")
show(lambda: 1 < "a")
show(lambda: [1] < (1,))
show(lambda: None < 1)
show(lambda: {} < {})
show(lambda: 1 & 1.5)
show(lambda: 5 @ 5)
show(lambda: None + 1)
show(lambda: 1 + None)
show(lambda: [1] + None)

# %% int floor division and modulo by zero
show(lambda: 7 // 0)
show(lambda: 7 % 0)

# %% float division by zero
show(lambda: 1.0 / 0)
show(lambda: 1.0 // 0)
show(lambda: 1.0 % 0)

# %% float power overflow
# differs: "math range error" instead of "(34, 'Numerical result out of range')"
show(lambda: 2 ** 10000.0)
show(lambda: 10.0 ** 400)

# %% average payload size over no records, uncaught
sizes: list[float] = []
avg = sum(sizes) / len(sizes)
print(avg)
