"""A cell's top-level name loads run as global loads (src/sandbox/rewrite/cell_code.rs): the cell's code is laid out again
with `LOAD_GLOBAL` for `LOAD_NAME`, which read a builtin without making and dropping a KeyError. What a cell does
must not change: each case runs in the sandbox and in CPython and prints the same."""

from __future__ import annotations

import pytest

from tests.cpython import assert_prints_as_cpython

LONG_BODY = "".join(f"    v{i % 7} = len(s) + abs(-{i})\n" for i in range(80))

CELLS = {
    "builtins shadowed, then deleted": ("print(len('abc'))\nlen = lambda x: 42\nprint(len('abc'))\ndel len\nprint(len('abc'))\n"),
    "a missing name caught": ("try:\n    print(undefined_name)\nexcept NameError as e:\n    print('caught', e, e.name)\n"),
    "names bound in the cell and read in loops": (
        "total = 0\nfor i in range(50):\n    if i % 3 == 0:\n        continue\n    total += i\n"
        "    while total > 100:\n        total -= 7\nprint(total, sum(range(10)), max([3, 1, 2]))\n"
    ),
    "comprehensions at the top level, and in a class body": (
        "x = 1\nys = [x + i for i in range(3)]\nzs = {k: len(str(k)) for k in range(12)}\n"
        "class C:\n    x = 5\n    z = [x for _ in range(2)]\n    w = x\nprint(ys, zs[11], C.z, C.w)\n"
    ),
    "try, finally, with, and exceptions across the moved code": (
        "import io\nlog = []\nfor i in range(4):\n    try:\n        if i == 2:\n            raise ValueError(i)\n"
        "        log.append(str(i))\n    except ValueError as e:\n        log.append('err' + str(e))\n"
        "    finally:\n        log.append(repr(len(log)))\nwith io.StringIO() as buf:\n    buf.write(' '.join(log))\n"
        "    print(buf.getvalue())\n"
    ),
    "a loop body long enough that its jumps need a second byte": (
        f"s = 'abcd'\ntotal = 0\nfor i in range(3):\n{LONG_BODY}    total += v0 + v6\nprint(total, v3)\n"
    ),
    "match, walrus and del": (
        "data = [1, [2, 3], {'k': 'v'}]\nfor item in data:\n    match item:\n        case int(n) if n > 0:\n"
        "            print('int', n)\n        case [a, b]:\n            print('pair', a + b)\n"
        "        case {'k': value}:\n            print('map', value)\n"
        "if (n := len(data)) > 2:\n    print('n', n)\ndel data\nprint('data' in dir())\n"
    ),
    "generators and functions defined in the cell": (
        "def gen(n):\n    for i in range(n):\n        yield i * i\ndef twice(f):\n    return lambda x: f(f(x))\n"
        "print(list(gen(4)), twice(abs)(-3), sorted(gen(5), key=lambda v: -v)[:2])\n"
    ),
    "globals() and vars() see what the cell stored": (
        "alpha = 1\nglobals()['beta'] = 2\nprint(alpha + beta, 'alpha' in vars(), isinstance(globals(), dict))\n"
    ),
}


@pytest.mark.parametrize("name", list(CELLS))
def test_a_cell_prints_what_cpython_prints(make_interp, name):
    assert_prints_as_cpython(make_interp(), CELLS[name])


def test_the_cells_own_code_loads_globals_and_a_class_body_keeps_name_loads(make_interp):
    interp = make_interp()
    out = interp.execute(
        "import dis, sys\n"
        "class K:\n    here = sys._getframe().f_code\n"
        "top = [i.opname for i in dis.get_instructions(sys._getframe().f_code)]\n"
        "body = [i.opname for i in dis.get_instructions(K.here)]\n"
        "print('LOAD_NAME' in top, 'LOAD_GLOBAL' in top, 'LOAD_NAME' in body)\n"
    )
    assert out == "False True True\n"


def test_an_error_after_the_moved_code_reports_its_own_line_and_columns(make_interp):
    interp = make_interp()
    source = f"s = 'abcd'\nfor i in range(2):\n{LONG_BODY}    v1 = v2\nresult = len(s) + undefined_total * 2\n"
    with pytest.raises(Exception) as raised:
        interp.execute(source)
    message = str(raised.value)
    line = source.count("\n")
    assert f"line {line}, in <module>" in message, message
    assert "NameError: name 'undefined_total' is not defined" in message
    # The caret under the name, as CPython places it.
    assert "result = len(s) + undefined_total * 2\n" in message
    assert "                  ^^^^^^^^^^^^^^^" in message, message


def test_a_cell_that_awaits_at_the_top_level_runs_with_its_loads_moved(make_interp):
    interp = make_interp()
    out = interp.execute(
        "import asyncio\nasync def f(x):\n    await asyncio.sleep(0)\n    return x * 2\n"
        "results = [await f(i) for i in range(3)]\nfor r in results:\n    print(len(str(r)), r)\n"
    )
    assert out == "1 0\n1 2\n1 4\n"
