"""`str.format` for templates of plain fields (src/sandbox/library/str_methods/format.rs): the sandbox reads the
template itself and gives any other to RustPython's method. Templates of every shape, valid and not, must format
(or fail) as CPython's, and a value's own `__format__` must run once per field, in order, whichever path runs."""

from __future__ import annotations

import pytest

from tests.cpython import assert_prints_as_cpython

PROGRAM = r"""
class Loud:
    calls = []
    def __init__(self, name):
        self.name = name
    def __format__(self, spec):
        Loud.calls.append((self.name, spec))
        return f'<{self.name}:{spec}>'
    def __repr__(self):
        return f'Loud({self.name})'
    real = 'attr'

templates = [
    '', 'plain', '{}', '{} {}', '{0} {1} {0}', '{1}{0}', '{name}', '{name!r}', '{0!s:>8}', '{!a}', '{:>6}',
    '{:*^9}', '{0:.2f}', '{:,}', '{:08.3f}|{:<5}|{!r:^12}', 'a {{b}} c', '{{}}', '{{{}}}', '}}{{', '{0:}',
    '{00}', '{name:{width}}', '{0.real}', '{0[0]}', '{} {0}', '{0} {}', '{2}', '{missing}', '{', '}', 'a}b',
    '{0!x}', '{0!rs}', '{!}', '{:{}}', '{0:!<5}', '{ }', '{a-b}', '{\u00e9}', 'caf\u00e9 {} \u65e5',
    '{0[a:b]}', '{:d}', '{:s}', '{!r:.3}',
]
values = [
    (7, 'x', 2.5), (-1234567, 'h\u00e9llo', 1 / 3), (True, None, float('nan')), (Loud('a'), Loud('b'), 0),
    ('\u65e5\u672c', [1, 2], {'k': 1}),
]
for template in templates:
    for args in values:
        Loud.calls.clear()
        try:
            result = repr(template.format(*args, name=args[1], width=7, **{'a-b': 'dash', '\u00e9': 'e', ' ': 'sp'}))
        except Exception as e:
            result = 'error ' + type(e).__name__
        print(repr(template), result, Loud.calls)
# Called unbound, with a str subclass, and with no arguments.
class S(str):
    pass
print(str.format('{}-{}', 1, 2), S('{0}{0}').format('ab'), type(S('{}').format(1)).__name__, 'x{{'.format())
"""


def test_templates_format_as_cpythons(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)


@pytest.mark.parametrize(
    "template, expected",
    [
        ("'{} {}'.format(1)", "IndexError: Replacement index 1 out of range for positional args tuple"),
        ("'{x}'.format(y=1)", "KeyError: 'x'"),
        ("'{} {0}'.format(1)", "ValueError: cannot switch from automatic field numbering to manual field specification"),
    ],
)
def test_a_template_that_cannot_be_filled_says_why_in_cpythons_words(make_interp, template, expected):
    interp = make_interp()
    with pytest.raises(Exception) as raised:
        interp.execute(template)
    assert expected in str(raised.value)
