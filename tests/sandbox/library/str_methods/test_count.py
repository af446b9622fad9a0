"""`str.count` by bytes (`src/sandbox/library/str_methods/count.rs`), against CPython: every script, overlapping
candidates, and the cases RustPython's own method keeps (bounds, an empty needle, subclasses, errors)."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

COUNTS = r"""
class S(str):
    pass

texts = ["", "a", "aaaa", "abcabcab", "été été", "日本日本日", "x🎉y🎉🎉", "lorem ipsum x dolor " * 50]
needles = ["a", "aa", "ab", "é", "t", "日本", "🎉", "🎉🎉", "x", "ipsum x", "zzz", "lorem ipsum x dolor " * 51]
for text in texts:
    print([text.count(needle) for needle in needles], text.count(""), text.count("a", 1), text.count("a", 0, 3))
print(S("aaaa").count("a"), "aaaa".count(S("aa")))
for bad in [(), (1,), ("a", "b"), (None,)]:
    try:
        "abc".count(*bad)
    except TypeError as error:
        print(type(error).__name__)
"""


def test_counts_are_cpythons(interp):
    assert_prints_as_cpython(interp, COUNTS)
