"""The methods the sandbox puts in place of RustPython's (src/sandbox/library/mod.rs, `fast_method`) keep the
replaced method's text signature, so `inspect.signature` and `help()` read them as CPython's."""

from __future__ import annotations

from tests.cpython import assert_prints_as_cpython

PROGRAM = """
import inspect, re
replaced = [(int, '__format__'), (float, '__format__'), (str, '__format__'), (str, 'strip'), (str, 'lstrip'),
            (str, 'rstrip'), (str, 'lower'), (str, 'upper'), (str, 'splitlines'), (str, 'split'), (list, 'sort'),
            (list, 'remove'), (set, 'update'),
            (re.Pattern, 'search'), (re.Pattern, 'findall')]
for cls, name in replaced:
    method = getattr(cls, name)
    print(cls.__name__, name, method.__text_signature__, inspect.signature(method))
"""


def test_a_replaced_method_keeps_its_signature(make_interp):
    assert_prints_as_cpython(make_interp(), PROGRAM)
