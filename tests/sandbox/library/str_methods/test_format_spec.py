"""`int`, `float` and `str` formatted by a spec (src/sandbox/library/str_methods/format_spec.rs): the sandbox writes the
common specs itself and gives the rest to RustPython's method. Every spec of a grammar-built sample, on values at
the edges (negative zero, halves that round to even, 64-bit limits, big ints, NaN, text that is not ASCII), must
come out as CPython's, through `format()`, f-strings and `str.format`."""

from __future__ import annotations

import pytest

from tests.cpython import assert_prints_as_cpython

# Runs in CPython and in the sandbox alike: builds the specs from the grammar, formats every value with each, and
# prints one line per (value, spec) with the result or the exception's type.
PROGRAM = r"""
import itertools, random
rng = random.Random(20261128)
fills = ['', '<', '>', '^', '=', '*<', '*>', '*^', '*=', '0>', '\u00e9^', ' <', '0=']
signs = ['', '+', '-', ' ']
alternates = ['', '#']
zeros = ['', '0']
widths = ['', '1', '7', '12', '03']
groupings = ['', ',', '_']
precisions = ['', '.0', '.1', '.2', '.6', '.17']
ints = [0, 1, -1, 7, -42, 255, 1234, -1234567, 2**31, -2**63, 2**63 - 1, 2**64 + 3, -(2**70), True, False]
floats = [0.0, -0.0, 0.125, 2.5, -1.5, 0.1, 2 / 3, 1234.5678, -98765.4321, 1e22, 1e-7, 123456789.125, 5e-324,
          1.7976931348623157e308, 0.005, 1.005, float('nan'), float('inf'), float('-inf')]
strings = ['', 'a', 'ab', 'h\u00e9llo', '\u65e5\u672c\u8a9e', 'x' * 30, 'tab\there']
groups = [
    (ints, ['', 'd', 'x', 'X', 'o', 'b', 'n', 'c', 'f', '%']),
    (floats, ['', 'f', 'F', '%', 'e', 'E', 'g', 'd']),
    (strings, ['', 's', 'd']),
]
def outcome(call):
    try:
        return repr(call())
    except Exception as e:
        return 'error ' + type(e).__name__
for values, kinds in groups:
    specs = [''.join(parts) for parts in itertools.product(fills, signs, alternates, zeros, widths, groupings, precisions, kinds)]
    for spec in rng.sample(specs, 1500):
        for value in values:
            print(repr(value), repr(spec), outcome(lambda: format(value, spec)))
        value = rng.choice(values)
        print('f-string', repr(value), repr(spec), outcome(lambda: eval('f"{value:' + spec + '}"')))
        print('str.format', repr(value), repr(spec), outcome(lambda: ('{:' + spec + '}').format(value)))
"""


def test_specs_format_as_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(timeout=120, max_output_chars=10_000_000), PROGRAM)


# The specs reports use, each on values that show its edges.
COMMON = {
    "columns": "rows = [('alpha', 3, 0.5), ('b\u00e9ta', 12345, -2.25), ('', -7, 1e-3)]\n"
    "for name, n, x in rows:\n    print(f'{name:<8}|{n:>8,}|{x:>10.2f}|{x:.1%}|{n:08x}|{name:^9.3}|{x:+.3e}')\n",
    "zero padding and signs": "for v in (0, 5, -5, 1234567):\n    print(f'{v:05} {v:+06d} {v: } {v:#010b} {v:_}')\n",
    "halves round to even": "print([f'{v:.0f}' for v in (0.5, 1.5, 2.5, -0.5)], f'{0.125:.2f}', f'{2.675:.2f}')\n",
}


@pytest.mark.parametrize("name", list(COMMON))
def test_report_specs_print_what_cpython_prints(make_interp, name):
    assert_prints_as_cpython(make_interp(), COMMON[name])
