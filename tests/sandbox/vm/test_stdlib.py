"""The curated standard library and the full language work inside the sandbox."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError

STDLIB_CASES = [
    (
        "unittest",
        "import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(1 + 1, 2)\n"
        "    def test_bad(self):\n        self.assertEqual(1, 2)\nr = unittest.TestResult()\n"
        "unittest.defaultTestLoader.loadTestsFromTestCase(T).run(r)\n(r.testsRun, len(r.failures))",
        (2, 1),
    ),
    (
        "doctest",
        'import doctest\ndef f():\n    """\n    >>> 1 + 1\n    2\n    >>> 2 * 2\n    5\n    """\n'
        "tuple(doctest.DocTestRunner(verbose=False).run(doctest.DocTestFinder().find(f)[0], out=lambda text: None))",
        (1, 2),
    ),
    ("pickle", "import pickle\npickle.loads(pickle.dumps({'a': (1, 2.5, None)}))", {"a": (1, 2.5, None)}),
    (
        "argparse",
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--n', type=int)\np.parse_args(['--n', '3']).n",
        3,
    ),
    ("json", "import json\njson.loads(json.dumps({'a': [1, 2.5, None]}))", {"a": [1, 2.5, None]}),
    ("re", "import re\nre.findall(r'\\d+', 'a1b22c333')", ["1", "22", "333"]),
    ("math", "import math\n(math.factorial(10), math.gcd(12, 18), math.isqrt(99))", (3628800, 6, 9)),
    ("cmath", "import cmath\ncmath.sqrt(-4) == 2j", True),
    ("collections", "import collections\ncollections.Counter('abracadabra').most_common(2)", [("a", 5), ("b", 2)]),
    ("itertools", "import itertools\nlist(itertools.combinations('abc', 2))", [("a", "b"), ("a", "c"), ("b", "c")]),
    ("functools", "import functools\nfunctools.reduce(lambda a, b: a * b, range(1, 6))", 120),
    ("operator", "import operator\nsorted([(1, 'b'), (0, 'a')], key=operator.itemgetter(1))", [(0, "a"), (1, "b")]),
    (
        "datetime",
        "import datetime\n(datetime.date(2024, 3, 1) - datetime.timedelta(days=1)).isoformat()",
        "2024-02-29",
    ),
    ("time", "import time\ntime.strftime('%Y-%m-%d', time.gmtime(0))", "1970-01-01"),
    ("string", "import string\nstring.Template('$who likes $what').substitute(who='tim', what='pie')", "tim likes pie"),
    ("textwrap", "import textwrap\ntextwrap.wrap('aaa bbb ccc ddd', width=7)", ["aaa bbb", "ccc ddd"]),
    ("heapq", "import heapq\nheapq.nsmallest(3, [5, 1, 4, 2, 3])", [1, 2, 3]),
    ("bisect", "import bisect\nbisect.bisect_left([1, 3, 5, 7], 5)", 2),
    ("statistics", "import statistics\n(statistics.mean([1, 2, 3, 4]), statistics.median([3, 1, 2]))", (2.5, 2)),
    (
        "random",
        "import random\nrng = random.Random(42)\nxs = [rng.randint(1, 6) for _ in range(20)]\nall(1 <= x <= 6 for x in xs)",
        True,
    ),
    (
        "dataclasses",
        "import dataclasses\n@dataclasses.dataclass\nclass P:\n    x: int\n    y: int = 0\ndataclasses.asdict(P(1))",
        {"x": 1, "y": 0},
    ),
    ("typing", "import typing\n[a.__name__ for a in typing.get_args(typing.Optional[int])]", ["int", "NoneType"]),
    ("enum", "import enum\nclass Color(enum.Enum):\n    RED = 1\n    BLUE = 2\n[c.name for c in Color]", ["RED", "BLUE"]),
    ("decimal", "import decimal\nstr(decimal.Decimal('0.1') + decimal.Decimal('0.2'))", "0.3"),
    ("fractions", "import fractions\nstr(fractions.Fraction(1, 3) + fractions.Fraction(1, 6))", "1/2"),
    ("copy", "import copy\na = [[1], [2]]\nb = copy.deepcopy(a)\nb[0].append(9)\na", [[1], [2]]),
    ("difflib", "import difflib\ndifflib.get_close_matches('appel', ['ape', 'apple', 'peach'])[0]", "apple"),
    ("unicodedata", "import unicodedata\nunicodedata.name('é')", "LATIN SMALL LETTER E WITH ACUTE"),
    ("base64", "import base64\nbase64.b64encode(b'hello').decode()", "aGVsbG8="),
    ("hashlib", "import hashlib\nhashlib.sha256(b'abc').hexdigest()[:16]", "ba7816bf8f01cfea"),
    ("csv", "import csv, io\nlist(csv.reader(io.StringIO('a,b\\n1,\"x,y\"\\n')))", [["a", "b"], ["1", "x,y"]]),
    ("io", "import io\ns = io.StringIO()\ns.write('txt')\nb = io.BytesIO(b'raw')\n(s.getvalue(), b.read())", ("txt", b"raw")),
    ("pprint", "import pprint\npprint.pformat({'b': 1, 'a': 2})", "{'a': 2, 'b': 1}"),
    (
        "contextlib",
        "import contextlib\nlog = []\n@contextlib.contextmanager\ndef cm():\n    log.append('in')\n    yield 5\n    log.append('out')\nwith cm() as v:\n    log.append(v)\nlog",
        ["in", 5, "out"],
    ),
    (
        "abc",
        "import abc\nclass Base(abc.ABC):\n    @abc.abstractmethod\n    def f(self): ...\ntry:\n    Base()\n    r = 'instantiated'\nexcept TypeError:\n    r = 'abstract'\nr",
        "abstract",
    ),
    ("types", "import types\nns = types.SimpleNamespace(a=1)\nns.b = 2\nvars(ns)", {"a": 1, "b": 2}),
    ("sys", "import sys\n(sys.version_info[0], sys.maxsize > 2**31)", (3, True)),
]


@pytest.mark.parametrize(("module", "code", "expected"), STDLIB_CASES, ids=[case[0] for case in STDLIB_CASES])
def test_stdlib_module_imports_and_works(interp, module, code, expected):
    assert interp.execute(code) == expected


def test_breakpoint_says_there_is_no_debugger(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("breakpoint()")
    assert info.value.error_type == "RuntimeError"
    assert "the sandbox has no debugger" in str(info.value)


def test_random_with_same_seed_is_reproducible(interp):
    code = "import random\n[random.Random(7).random() for _ in range(2)]"
    first, second = interp.execute(code)
    assert first == second


# ---------------------------------------------------------------------------------------------------------
# the language
# ---------------------------------------------------------------------------------------------------------


def test_classes_inheritance_and_super(interp):
    code = (
        "class Animal:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "    def speak(self):\n"
        "        return f'{self.name} makes a sound'\n"
        "class Dog(Animal):\n"
        "    def speak(self):\n"
        "        return super().speak() + ' (woof)'\n"
        "Dog('rex').speak(), isinstance(Dog('a'), Animal)"
    )
    assert interp.execute(code) == ("rex makes a sound (woof)", True)


def test_generators_and_yield_from(interp):
    code = (
        "def count(n):\n"
        "    for i in range(n):\n"
        "        yield i\n"
        "def both():\n"
        "    yield from count(2)\n"
        "    yield from count(3)\n"
        "list(both())"
    )
    assert interp.execute(code) == [0, 1, 0, 1, 2]


def test_generator_send(interp):
    code = "def acc():\n    total = 0\n    while True:\n        total += yield total\ng = acc()\nnext(g)\ng.send(5)\ng.send(10)"
    assert interp.execute(code) == 15


def test_decorators_with_arguments(interp):
    code = (
        "import functools\n"
        "def times(n):\n"
        "    def deco(f):\n"
        "        @functools.wraps(f)\n"
        "        def wrapper(*a):\n"
        "            return [f(*a) for _ in range(n)]\n"
        "        return wrapper\n"
        "    return deco\n"
        "@times(3)\n"
        "def hello(x):\n"
        "    return x\n"
        "hello('hi'), hello.__name__"
    )
    assert interp.execute(code) == (["hi", "hi", "hi"], "hello")


def test_properties_with_setter(interp):
    code = (
        "class Temp:\n"
        "    def __init__(self):\n"
        "        self._c = 0\n"
        "    @property\n"
        "    def f(self):\n"
        "        return self._c * 9 / 5 + 32\n"
        "    @f.setter\n"
        "    def f(self, value):\n"
        "        self._c = (value - 32) * 5 / 9\n"
        "t = Temp()\n"
        "t.f = 212\n"
        "t._c, t.f"
    )
    assert interp.execute(code) == (100.0, 212.0)


def test_match_statement(interp):
    code = (
        "def describe(p):\n"
        "    match p:\n"
        "        case {'kind': 'point', 'x': 0, 'y': y}:\n"
        "            return f'on y axis at {y}'\n"
        "        case [a, b, *rest]:\n"
        "            return f'seq {a},{b} +{len(rest)}'\n"
        "        case int(n) if n > 10:\n"
        "            return 'big'\n"
        "        case _:\n"
        "            return 'other'\n"
        "[describe({'kind': 'point', 'x': 0, 'y': 4}), describe([1, 2, 3, 4]), describe(11), describe(1)]"
    )
    assert interp.execute(code) == ["on y axis at 4", "seq 1,2 +2", "big", "other"]


def test_f_strings_with_format_specs(interp):
    code = "x = 3.14159\nname = 'pi'\nf'{name!r:>6}|{x:.2f}|{42:05d}|{x=:.1f}|{1_000_000:,}'"
    assert interp.execute(code) == "  'pi'|3.14|00042|x=3.1|1,000,000"


def test_comprehensions_of_all_kinds(interp):
    code = (
        "nums = range(6)\n"
        "([n * n for n in nums if n % 2], {n % 3 for n in nums}, {n: n * 2 for n in nums if n < 2}, "
        "sum(n for n in nums), [(a, b) for a in range(2) for b in range(2)])"
    )
    assert interp.execute(code) == ([1, 9, 25], {0, 1, 2}, {0: 0, 1: 2}, 15, [(0, 0), (0, 1), (1, 0), (1, 1)])


def test_closures_with_nonlocal(interp):
    code = (
        "def counter():\n"
        "    n = 0\n"
        "    def inc():\n"
        "        nonlocal n\n"
        "        n += 1\n"
        "        return n\n"
        "    return inc\n"
        "c = counter()\n"
        "c(); c()\n"
        "c()"
    )
    assert interp.execute(code) == 3


def test_exceptions_with_finally_and_chaining(interp):
    code = (
        "log = []\n"
        "try:\n"
        "    try:\n"
        "        {}['k']\n"
        "    except KeyError as e:\n"
        "        raise ValueError('wrapped') from e\n"
        "    finally:\n"
        "        log.append('finally')\n"
        "except ValueError as e:\n"
        "    log.append(type(e.__cause__).__name__)\n"
        "else:\n"
        "    log.append('else')\n"
        "log"
    )
    assert interp.execute(code) == ["finally", "KeyError"]


def test_dataclass_ordering_and_defaults(interp):
    code = (
        "from dataclasses import dataclass, field\n"
        "@dataclass(order=True, frozen=True)\n"
        "class V:\n"
        "    major: int\n"
        "    minor: int = 0\n"
        "    tags: tuple = field(default=(), compare=False)\n"
        "repr(sorted([V(2), V(1, 5), V(1, 2)])[0]), V(1) == V(1, 0, ('x',))"
    )
    assert interp.execute(code) == ("V(major=1, minor=2, tags=())", True)


def test_main_module_is_the_session_namespace(interp):
    # dataclasses and typing look a class's module up in sys.modules; with postponed annotations a dataclass
    # failed ('NoneType' object has no attribute '__dict__') while `__main__` was missing there.
    code = (
        "from __future__ import annotations\n"
        "import dataclasses, sys, typing\n"
        "@dataclasses.dataclass\n"
        "class P:\n"
        "    a: int\n"
        "    b: typing.ClassVar[int] = 3\n"
        "[f.name for f in dataclasses.fields(P)], typing.get_type_hints(P)['a'] is int, "
        "sys.modules['__main__'].__dict__ is globals()"
    )
    assert interp.execute(code) == (["a"], True, True)
    interp.execute("import sys\ndel sys.modules['__main__']")
    assert interp.execute("import sys\nsys.modules['__main__'].P is P") is True


def test_async_coroutine_driven_by_send(interp):
    code = (
        "async def inner(x):\n"
        "    return x * 2\n"
        "async def outer():\n"
        "    return await inner(21)\n"
        "coro = outer()\n"
        "try:\n"
        "    coro.send(None)\n"
        "except StopIteration as stop:\n"
        "    result = stop.value\n"
        "result"
    )
    assert interp.execute(code) == 42


def test_walrus_and_star_unpacking(interp):
    code = "first, *middle, last = [1, 2, 3, 4]\nif (n := len(middle)) > 1:\n    r = (first, middle, last, n)\nr"
    assert interp.execute(code) == (1, [2, 3], 4, 2)


def test_csv_state_belongs_to_each_session(make_interp):
    # RustPython keeps the dialect registry and the field size limit process-wide; the sandbox's are per session.
    first, second = make_interp(), make_interp()
    first.execute("import csv\ncsv.register_dialect('semi', delimiter=';')\ncsv.field_size_limit(5)")
    assert second.execute("import csv\n('semi' in csv.list_dialects(), csv.field_size_limit())") == (False, 131072)
    assert first.execute("list(csv.reader(['a;b'], 'semi'))") == [["a", "b"]]


def test_csv_removed_from_sys_modules_says_how_to_get_it_back(interp):
    with pytest.raises(CodeExecutionError, match=r"ImportError: _csv can be imported once per session"):
        interp.execute("import sys, _csv\nkept = sys.modules.pop('_csv')\nimport _csv")
    assert interp.execute("sys.modules['_csv'] = kept\nimport csv\nlist(csv.reader(['a,b']))") == [["a", "b"]]


def test_csv_field_size_limit_is_enforced(interp):
    interp.execute("import csv\nprevious = csv.field_size_limit(5)")
    with pytest.raises(CodeExecutionError, match=r"Error: field larger than field limit \(5\)"):
        interp.execute("list(csv.reader(['abcdefgh,1']))")
    assert interp.execute("csv.field_size_limit(previous)\nlist(csv.reader(['abcdefgh,1']))") == [["abcdefgh", "1"]]


def test_csv_dialects_by_name_and_object(interp):
    code = (
        "import csv, io\n"
        "csv.register_dialect('pipes', delimiter='|', quoting=csv.QUOTE_MINIMAL)\n"
        "out = io.StringIO()\n"
        "csv.writer(out, 'pipes').writerow(['a', 'b|c'])\n"
        "rows = list(csv.DictReader(io.StringIO('x|y\\n1|2\\n'), dialect='pipes'))\n"
        "(out.getvalue(), rows, csv.get_dialect('pipes').delimiter, sorted(csv.list_dialects()))"
    )
    assert interp.execute(code) == ('a|"b|c"\r\n', [{"x": "1", "y": "2"}], "|", ["excel", "excel-tab", "pipes", "unix"])


def test_resource_reports_the_sessions_limits_and_refuses_to_set_them(interp):
    shown = interp.execute(
        "import resource\nusage = resource.getrusage(resource.RUSAGE_SELF)\n"
        "(len(usage), usage.ru_maxrss, usage.ru_utime >= 0, resource.getrlimit(resource.RLIMIT_STACK), resource.getpagesize())"
    )
    assert shown == (16, 0, True, (8388608, -1), 4096)
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))")
    assert raised.value.error_type == "PermissionError"


# Refused modules say why (src/sandbox/vm/stdlib.rs), never a bare "No module named".
REFUSED = {
    "ssl": "network",
    "smtplib": "network",
    "xmlrpc.client": "network",
    "multiprocessing": "processes",
    "concurrent.futures.process": "processes",
    "_ctypes": "native code",
    "mmap": "native code",
    "pwd": "host system",
    "grp": "host system",
}


@pytest.mark.parametrize(("module", "reason"), sorted(REFUSED.items()))
def test_a_refused_module_says_why(interp, module, reason):
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(f"import {module}")
    assert raised.value.error_type == "ModuleNotFoundError", str(raised.value)
    assert "is not available in the sandbox" in str(raised.value) and reason in str(raised.value)


def test_a_thread_pool_gives_what_threads_give(interp):
    code = (
        "from concurrent.futures import ThreadPoolExecutor, as_completed\n"
        "def work(n):\n"
        "    if n == 3:\n"
        "        raise ValueError(n)\n"
        "    return n * n\n"
        "with ThreadPoolExecutor(max_workers=4) as pool:\n"
        "    squares = list(pool.map(work, [1, 2]))\n"
        "    futures = [pool.submit(work, n) for n in range(5)]\n"
        "    done = sorted(repr(f.exception()) if f.exception() else str(f.result()) for f in as_completed(futures))\n"
        "(squares, done)"
    )
    assert interp.execute(code) == ([1, 4], ["0", "1", "16", "4", "ValueError(3)"])


def test_a_thread_pool_task_result(interp):
    code = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor() as pool:\n"
        "    results = [f.result() for f in [pool.submit(pow, 2, n) for n in range(4)]]\n"
        "    try:\n"
        "        pool.submit(int, 'x').result()\n"
        "    except ValueError as error:\n"
        "        results.append(str(error))\n"
        "results"
    )
    assert interp.execute(code) == [1, 2, 4, 8, "invalid literal for int() with base 10: 'x'"]


def test_the_instructions_name_only_modules_that_import(interp):
    # The model reads execution_instructions before writing code: each module they name must import, and those
    # they say are missing must be missing.
    from dspy_rust_interpreter import RustInterpreter

    text = RustInterpreter.execution_instructions
    named = text.split("Most of the standard library is available (", 1)[1].split(";", 1)[0]
    modules = [name.strip() for name in named.split(",") if name.strip() not in ("", "...")]
    assert "urllib.parse" in modules and "zipfile" in modules
    for module in modules:
        interp.execute(f"import {module}")
    assert "a module that needs the network, processes or native code raises ImportError saying so" in text
    for refused in ("multiprocessing", "mmap", "ftplib"):
        with pytest.raises(CodeExecutionError, match="ModuleNotFoundError: module .* is not available in the sandbox: it "):
            interp.execute(f"import {refused}")
