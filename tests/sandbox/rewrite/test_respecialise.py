"""Specialisations RustPython would keep after they went stale are put back to their adaptive forms
(src/sandbox/rewrite/respecialise.rs): a cell run again, and the namespace's functions once it gained names, start as code
that never ran. What is seen: the adaptive instructions `dis` shows before the code runs again, and results that
do not change, including generators suspended in the code."""

from __future__ import annotations

SPECIALISED = "import dis, io\ndef specialised(code):\n    seen = io.StringIO()\n    dis.dis(code, adaptive=True, file=seen)\n    return 'LOAD_GLOBAL_BUILTIN' in seen.getvalue()\n"


def test_a_cell_run_again_starts_unspecialised(make_interp):
    # A cell's first run specialises its loads against the globals as they were, then stores a new name; run again,
    # the cell starts as code that never ran, and specialises against the globals as they are now.
    interp = make_interp()
    interp.execute(SPECIALISED)
    cell = (
        "import sys\n"
        "before = specialised(sys._getframe().f_code)\n"
        "total = sum([abs(-i) for i in range(5000)])\n"
        "print(before, total)\n"
    )
    assert interp.execute(cell) == "False 12497500\n"
    assert interp.execute(cell) == "False 12497500\n"
    # Generators of the cell's code suspended in earlier runs go on after its code is made adaptive under them.
    interp.execute("gens = []")
    advance = "gens.append((abs(-i) for i in range(5000)))\nstep = [next(g) for g in gens for _ in range(1000)]"
    for _ in range(3):
        interp.execute(advance)
    expected = [sum(range(3000, 5000)), sum(range(2000, 5000)), sum(range(1000, 5000))]
    assert interp.execute("print([sum(g) for g in gens])") == f"{expected}\n"


def test_a_function_of_the_namespace_respecialises_after_new_names(make_interp):
    interp = make_interp()
    interp.execute(SPECIALISED)
    interp.execute("def longest(words):\n    return max(len(w) for w in words) + abs(-1)\n")
    calls = "for _ in range(50):\n    n = longest(words)\nprint(specialised(longest.__code__), n)"
    assert interp.execute("words = ['a', 'bbb', 'cc'] * 100\n" + calls) == "True 4\n"
    # Later cells store new names: before the function runs again its loads are adaptive, then specialise anew.
    interp.execute("extra = 1\nmore = 2")
    assert interp.execute("print(specialised(longest.__code__))") == "False\n"
    assert interp.execute(calls) == "True 4\n"


def test_code_that_sys_monitoring_instruments_is_left_as_it_is(make_interp):
    # With LINE events on, an instrumented line hides its opcode, and a walk that stepped
    # over it as an opcode without caches read a stale slot offset as an opcode and rewrote the live offset of the
    # next `LOAD_ATTR_SLOT` (a wrong attribute; with another layout, a read outside the object).
    interp = make_interp()
    interp.execute(
        "names = ['s%02d' % k for k in range(20)]\n"
        "class T:\n    __slots__ = tuple(names)\n    def __init__(s):\n"
        "        for k, n in enumerate(names):\n            setattr(s, n, 'slot%d' % k)\n"
        "class S:\n    __slots__ = ('a', 'b', 'c', 'd', 'e', 'f', 'p')\n"
        "    def __init__(s):\n        s.a = s.b = s.c = s.d = s.e = s.f = 0\n        s.p = T()\n"
        "def f(o):\n    x = (o\n      .p.s06)\n    return x\n"
        "o = S()\nfor _ in range(100):\n    f(o)\nprint(f(o))"
    )
    monitored = interp.execute(
        "import sys\nM = sys.monitoring\nM.use_tool_id(3, 't')\n"
        "M.register_callback(3, M.events.LINE, lambda code, line: None)\nM.set_events(3, M.events.LINE)\n"
        "for _ in range(100):\n    f(o)\nprint(f(o))"
    )
    assert monitored == "slot6\n"
    assert interp.execute("y1 = 1\nprint(f(o), o.p.s06)") == "slot6 slot6\n"
    assert interp.execute("sys.monitoring.set_events(3, 0)\ny2 = 2\nprint([f(o) for _ in range(200)][-1])") == "slot6\n"
