"""Equal strs cut from one long text are one object (src/sandbox/library/str_methods/shared.rs): the words of a
context, made by `str.split` or `re.findall`, are a few objects, found in a dict or set by identity. A text of
unique tokens stops sharing after its first pieces; a short text never starts. (That the values are CPython's
is tested beside each user: `str_methods/test_split.py`, `re/test_exact.py`.)"""

from __future__ import annotations

import pytest

CASES = [
    ("('alpha beta gamma ' * 5000).split()", "15000 3"),
    ("('a,b,,c,' * 2000).split(',')", "8001 4"),
    ("re.findall(r'\\w+', 'alpha beta gamma ' * 5000)", "15000 3"),
    ("re.findall(r'(\\w)\\w*', 'alpha beta gamma ' * 5000)", "15000 3"),
    # Unique tokens: nothing to share, and the table is dropped after the first 4,096 pieces.
    ("' '.join(f't{i}' for i in range(20000)).split()", "20000 20000"),
    ("re.findall(r'\\d+', ' '.join(map(str, range(20000))))", "20000 20000"),
    # A short text is split without a table: equal pieces are separate objects, as in CPython.
    ("('ab cd ' * 100).split()", "200 200"),
]


@pytest.mark.parametrize(("made", "expected"), CASES)
def test_repeated_pieces_of_a_long_text_are_one_object(make_interp, made, expected):
    out = make_interp().execute(f"import re\npieces = {made}\nprint(len(pieces), len({{id(p) for p in pieces}}))")
    assert out == expected + "\n"
