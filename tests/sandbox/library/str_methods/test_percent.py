"""`str % values` for templates of plain conversions (src/sandbox/library/str_methods/percent.rs): the sandbox writes
them itself and gives any other template to RustPython's `%`. Conversions of every flag, width and precision, on
values at the edges, and templates that must fail, must come out as CPython's; a value's `__str__`/`__repr__`
runs once per conversion, in order, whichever path runs."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
import itertools, random
rng = random.Random(1128)

class Loud:
    calls = []
    def __str__(self):
        Loud.calls.append('str')
        return 'L\u00e9'
    def __repr__(self):
        Loud.calls.append('repr')
        return 'Loud()'

flags = ['', '-', '0', '+', ' ', '#', '-0', '+0', '#0', '- ', '-#']
widths = ['', '1', '6', '12']
precisions = ['', '.', '.0', '.2', '.5']
conversions = ['d', 'i', 'u', 'x', 'X', 'o', 'f', 'F', 'e', 'E', 's', 'r', 'a', 'g', 'c', '%']
values = [0, 7, -42, 255, -2**63, 2**63, 2**53 + 1, True, 0.0, -0.0, 2.5, -1.005, 1e22, 1 / 3, float('nan'),
          float('-inf'), 'h\u00e9llo', '', None, [1, 'a'], Loud()]
def outcome(call):
    Loud.calls.clear()
    try:
        return repr(call()) + ' ' + ','.join(Loud.calls)
    except Exception as e:
        return 'error ' + type(e).__name__ + ' ' + ','.join(Loud.calls)
specs = ['%' + ''.join(parts) for parts in itertools.product(flags, widths, precisions, conversions)]
for spec in rng.sample(specs, 900):
    for value in values:
        print(repr(spec), repr(value), outcome(lambda: spec % value), outcome(lambda: ('<' + spec + '>') % (value,)))
# Templates of several conversions, and value counts that do not match.
templates = ['%s=%r', '%-8s|%6.2f|%05d', '%d items (%.1f%%)', 'no conversions', '%s', '%(a)s', '%d %s',
             '%*d', '%.*f', '%ld', '100%', '%c%c', 'caf\u00e9 %s \u65e5 %d']
arguments = [(), ('a',), ('a', 2.5), ('x', 3.14159, 42), (3, 12.5), {'a': 1}, [1, 2], 'str', (Loud(), Loud(), 1),
             (5, 'x'), (65, 66)]
for template in templates:
    for args in arguments:
        print(repr(template), repr(args), outcome(lambda: template % args))
# An int subclass's own __float__ is what %f and %e write (and may raise); %d writes its value.
class Wide(int):
    def __float__(self):
        Loud.calls.append('float')
        return 99.0
class Broken(int):
    def __float__(self):
        raise ValueError('no float')
for template, args in [('%f', Wide(3)), ('%e|%d', (Wide(3), Wide(4))), ('%s %f %s', (Loud(), Broken(1), Loud())),
                       ('%x', Wide(255))]:
    print(repr(template), outcome(lambda: template % args))
"""


def test_conversions_format_as_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(timeout=120), PROGRAM)
