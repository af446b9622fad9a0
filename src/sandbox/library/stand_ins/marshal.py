"""The sandbox's stand-in for ``marshal``, written for dspy-rust-interpreter: CPython's format for data (None,
bools, ints, floats, complex, bytes, str, tuples, lists, dicts, sets, frozensets, Ellipsis, StopIteration), so
``pstats`` and ``cProfile`` can save and load statistics and a ``.marshal`` file CPython wrote loads here.

Code objects neither load nor dump: loading one would let code craft bytecode, which the VM does not verify.
What this writes loads in CPython (it never uses back-references, which CPython writes for objects it sees
twice, so the bytes may differ from CPython's own for the same value)."""

import struct as _struct

version = 4

_NO_CODE = "marshal does not load or dump code objects in the sandbox (its VM runs bytecode unverified); data only"
_FLAG_REF = 0x80
_SMALL = 256


def _unmarshallable():
    return ValueError("unmarshallable object")


def _write(value, out, depth):
    if depth > 2000:
        raise ValueError("object too deeply nested to marshal")
    kind = type(value)
    if value is None:
        out += b"N"
    elif value is False:
        out += b"F"
    elif value is True:
        out += b"T"
    elif value is StopIteration:
        out += b"S"
    elif value is Ellipsis:
        out += b"."
    elif kind is int:
        if -(1 << 31) <= value < (1 << 31):
            out += b"i" + _struct.pack("<i", value)
        else:
            digits, rest = [], abs(value)
            while rest:
                digits.append(rest & 0x7FFF)
                rest >>= 15
            out += b"l" + _struct.pack("<i", len(digits) if value > 0 else -len(digits))
            out += b"".join(_struct.pack("<H", digit) for digit in digits)
    elif kind is float:
        out += b"g" + _struct.pack("<d", value)
    elif kind is complex:
        out += b"y" + _struct.pack("<dd", value.real, value.imag)
    elif kind in (bytes, bytearray, memoryview):
        data = bytes(value)
        out += b"s" + _struct.pack("<i", len(data)) + data
    elif kind is str:
        data = value.encode("utf-8", "surrogatepass")
        out += b"u" + _struct.pack("<i", len(data)) + data
    elif kind in (tuple, list, set, frozenset):
        items = list(value)
        if kind is tuple and len(items) < _SMALL:
            out += b")" + bytes([len(items)])
        else:
            code = {tuple: b"(", list: b"[", set: b"<", frozenset: b">"}[kind]
            out += code + _struct.pack("<i", len(items))
        for item in items:
            _write(item, out, depth + 1)
    elif kind is dict:
        out += b"{"
        for key, item in value.items():
            _write(key, out, depth + 1)
            _write(item, out, depth + 1)
        out += b"0"
    elif kind.__name__ == "code":
        raise ValueError(_NO_CODE)
    else:
        raise _unmarshallable()


def dumps(value, version=version, /, *, allow_code=True):
    out = bytearray()
    _write(value, out, 0)
    return bytes(out)


def dump(value, file, version=version, /, *, allow_code=True):
    file.write(dumps(value, version))


class _Reader:
    def __init__(self, data):
        self.data = memoryview(data).cast("B")
        self.pos = 0
        self.refs = []

    def take(self, count):
        if count < 0 or self.pos + count > len(self.data):
            raise EOFError("marshal data too short")
        chunk = bytes(self.data[self.pos : self.pos + count])
        self.pos += count
        return chunk

    def int32(self):
        return _struct.unpack("<i", self.take(4))[0]

    def size(self):
        count = self.int32()
        if count < 0:
            raise ValueError("bad marshal data (size out of range)")
        return count

    def read(self, depth=0):
        if depth > 2000:
            raise ValueError("bad marshal data (too deeply nested)")
        code = self.take(1)[0]
        flagged, code = code & _FLAG_REF, chr(code & ~_FLAG_REF)
        if code == "r":
            index = self.int32()
            if not 0 <= index < len(self.refs) or self.refs[index] is _PENDING:
                raise ValueError("bad marshal data (invalid reference)")
            return self.refs[index]
        slot = None
        if flagged:
            slot = len(self.refs)
            self.refs.append(_PENDING)
        value = self.value(code, depth)
        if slot is not None:
            self.refs[slot] = value
        return value

    def value(self, code, depth):
        simple = {"N": None, "F": False, "T": True, "S": StopIteration, ".": Ellipsis}
        if code in simple:
            return simple[code]
        if code == "i":
            return self.int32()
        if code == "l":
            count = self.int32()
            value = 0
            for index in range(abs(count)):
                value |= _struct.unpack("<H", self.take(2))[0] << (15 * index)
            return -value if count < 0 else value
        if code == "g":
            return _struct.unpack("<d", self.take(8))[0]
        if code == "y":
            return complex(*_struct.unpack("<dd", self.take(16)))
        if code == "f":
            return float(self.take(self.take(1)[0]).decode("ascii"))
        if code == "x":
            real = float(self.take(self.take(1)[0]).decode("ascii"))
            return complex(real, float(self.take(self.take(1)[0]).decode("ascii")))
        if code == "s":
            return self.take(self.size())
        if code in "tu":
            return self.take(self.size()).decode("utf-8", "surrogatepass")
        if code in "aA":
            return self.take(self.size()).decode("latin-1")
        if code in "zZ":
            return self.take(self.take(1)[0]).decode("latin-1")
        if code == ")":
            return tuple(self.read(depth + 1) for _ in range(self.take(1)[0]))
        if code in "([<>":
            items = [self.read(depth + 1) for _ in range(self.size())]
            return {"(": tuple, "[": list, "<": set, ">": frozenset}[code](items)
        if code == "{":
            result = {}
            while True:
                if self.pos < len(self.data) and self.data[self.pos] == ord("0"):
                    self.pos += 1
                    return result
                key = self.read(depth + 1)
                result[key] = self.read(depth + 1)
        if code == "c":
            raise ValueError(_NO_CODE)
        raise ValueError("bad marshal data (unknown type code)")


_PENDING = object()


def loads(data, /, *, allow_code=True):
    return _Reader(data).read()


def load(file, /, *, allow_code=True):
    data = file.read()
    reader = _Reader(data)
    value = reader.read()
    unread = len(data) - reader.pos
    if unread and hasattr(file, "seek"):
        file.seek(-unread, 1)
    return value
