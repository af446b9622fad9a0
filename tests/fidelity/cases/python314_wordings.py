# CPython 3.14's words and results where RustPython's differ: misses of index/remove, struct's item counts, json's bad
# escape, string.Formatter's escaped braces, array's repr, bytes concatenation, syntax errors of ast.parse and
# literal_eval, module annotations with the future import.
import array
import collections
import json
import string
import struct


def show(label, call):
    try:
        print(label, "->", repr(call()))
    except Exception as error:
        print(label, "->", type(error).__name__ + ":", error)


show("list.index", lambda: ["a", "b"].index("z"))
show("list.index range", lambda: [1, 2, 3].index(3, 0, 2))
show("list.remove", lambda: [1].remove(2))
show("range.index", lambda: range(3).index(7))
show("deque.index", lambda: collections.deque([1, 2]).index(5))
show("deque.remove", lambda: collections.deque([1]).remove(5))
show("bytes.index", lambda: b"abc".index(b"z"))
show("bytes.rindex", lambda: b"abc".rindex(b"z"))
show("bytearray.index", lambda: bytearray(b"abc").index(b"z"))
show("str.index", lambda: "abc".index("z"))
show("tuple.index", lambda: (1, 2).index(3))
show("pack", lambda: struct.pack("<2i", 1))
show("pack many", lambda: struct.pack("<3s2x?", b"a", True, 1))
show("pack_into", lambda: struct.pack_into("<2i", bytearray(8), 0, 1))
show("Struct.pack", lambda: struct.Struct(">hhl").pack(1))
show("Struct.pack_into", lambda: struct.Struct("<2i").pack_into(bytearray(8), 0, 1, 2, 3))
show("pack ok", lambda: struct.pack("<2i", 1, 2))
show("json escape", lambda: json.loads('"\\x"'))
show("json escape 2", lambda: json.loads('{"a": "b\\qc"}'))
show("json unterminated", lambda: json.loads('"abc'))
show("json ok", lambda: json.loads('"a\\nb\\u00e9"'))
for text in ["c{{lit}}d", "{0!r:>5}", "a{b.c[d]}e", "{a:{b}}", "x{", "x}", "{a!rr}", "{{}}", "a{0[}]}b", "{!r}"]:
    show(f"parse {text!r}", lambda text=text: list(string.Formatter().parse(text)))
show("format", lambda: string.Formatter().format("{0}{{x}}{1!r:>4}", 1, "b"))
show("array d", lambda: array.array("d", [-3.0, 0.1, 1e20]))
show("array f", lambda: array.array("f", [0.1]))
show("array empty", lambda: array.array("i"))
show("array i", lambda: array.array("q", [-1, 2**40]))
show("array str", lambda: str(array.array("d", [2.5])))
show("bytes + str", lambda: b"a" + "b")
show("bytearray + int", lambda: bytearray(b"a") + 1)
show("bytes + list", lambda: b"a" + [1])
show("bytes + memoryview", lambda: b"a" + memoryview(b"b"))
import ast

show("literal_eval unclosed", lambda: ast.literal_eval("{'a': 1"))
show("parse unclosed", lambda: ast.parse("x = [1, 2"))
show("parse call", lambda: ast.parse("f(1"))
show("parse mismatched", lambda: ast.parse("{1: [2, 3}"))
show("parse fine", lambda: type(ast.parse("x = 1")).__name__)
exec("from __future__ import annotations\nx: int = 5\ny: list[str]\nprint(__annotations__)\n", {})
