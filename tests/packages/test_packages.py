"""The user's pure-Python packages in the sandbox (the `packages` option, docs/packages.md): real packages
imported and exercised with the kind of cell a model writes, and the attacks on the option written first:
package files are read-only and the same for every session, a session's monkeypatching stays its own, no
native code loads, and the sandbox sees /packages, never a host path."""

from __future__ import annotations

import os
import pickle
import sys

import pytest

from dspy_rust_interpreter import CodeExecutionError, Mount, RustInterpreter

CELLS = {
    "sympy": (
        "import sympy as sp\nx = sp.symbols('x')\n"
        "([int(r) for r in sp.solve(x**2 - 5*x + 6, x)], str(sp.integrate(sp.sin(x)**2, x)), sp.factorint(360), str(sp.Rational(1, 3) + sp.Rational(1, 6)))",
        ([2, 3], "x/2 - sin(x)*cos(x)/2", {2: 3, 3: 2, 5: 1}, "1/2"),
    ),
    "networkx": (
        "import networkx as nx\ng = nx.Graph()\ng.add_weighted_edges_from([('a', 'b', 1), ('b', 'c', 2), ('a', 'c', 5)])\n"
        "(nx.shortest_path(g, 'a', 'c', weight='weight'), nx.shortest_path_length(g, 'a', 'c', weight='weight'), sorted(nx.connected_components(g))[0] == {'a', 'b', 'c'})",
        (["a", "b", "c"], 3, True),
    ),
    "beautifulsoup4": (
        "from bs4 import BeautifulSoup\nsoup = BeautifulSoup('<ul><li class=x>a</li><li>b</li></ul><a href=\"/u\">u</a>', 'html.parser')\n"
        "([li.text for li in soup.find_all('li')], soup.select_one('li.x').text, soup.a['href'])",
        (["a", "b"], "a", "/u"),
    ),
    "python-dateutil": (
        "from dateutil import parser, relativedelta\nd = parser.parse('March 5, 2024 10:30')\n"
        "(d.isoformat(), (d + relativedelta.relativedelta(months=+1, day=31)).date().isoformat())",
        ("2024-03-05T10:30:00", "2024-04-30"),
    ),
    "tabulate": (
        "from tabulate import tabulate\nprint(tabulate([['pen', 1.5], ['book', 12]], headers=['item', 'price']))",
        "item      price\n------  -------\npen         1.5\nbook       12\n",
    ),
    "more-itertools": (
        "import more_itertools as mi\n(list(mi.chunked(range(7), 3)), list(mi.windowed([1, 2, 3, 4], 2)), mi.first([], default=0))",
        ([[0, 1, 2], [3, 4, 5], [6]], [(1, 2), (2, 3), (3, 4)], 0),
    ),
    "pyyaml": (
        "import yaml\n(yaml.safe_load('a: [1, 2]\\nb: {c: x}'), yaml.dump({'k': [1]}), yaml.__with_libyaml__)",
        # PyYAML has a compiled module (its libyaml binding): CPython imports it, with the binding.
        ({"a": [1, 2], "b": {"c": "x"}}, "k:\n- 1\n", True),
    ),
    "attrs": (
        "import attrs\n@attrs.define\nclass P:\n    x: int\n    y: int = 0\n(repr(P(1)), attrs.asdict(P(2, 3)))",
        ("P(x=1, y=0)", {"x": 2, "y": 3}),
    ),
    # Reads its data file through importlib.resources (files() and as_file()).
    "certifi": (
        "import certifi\n(certifi.where(), '-----BEGIN CERTIFICATE-----' in certifi.contents())",
        ("/packages/certifi/cacert.pem", True),
    ),
}


@pytest.fixture(scope="module")
def with_packages():
    interp = RustInterpreter(timeout=120, packages=list(CELLS))
    yield interp
    interp.shutdown()


@pytest.mark.parametrize("package", list(CELLS), ids=list(CELLS))
def test_a_real_package_works_as_a_model_uses_it(with_packages, package):
    code, expected = CELLS[package]
    assert with_packages.execute(code) == expected


def test_import_time_decisions_see_the_sessions_streams(with_packages):
    """sympy picks its pretty printer's characters at import, from `sys.stdout.encoding`; the zygote imports it
    with the session's streams in place, so it prints Unicode as in CPython."""
    shown = with_packages.execute("import sympy as sp\nprint(sp.pretty(sp.Matrix([[1, 2], [3, 4]])))")
    assert shown == "\u23a11  2\u23a4\n\u23a2    \u23a5\n\u23a33  4\u23a6\n"


def test_the_model_is_told_which_packages_it_has(with_packages):
    told = with_packages.execution_instructions
    assert "Third-party packages installed for you" in told
    for name in ("sympy", "mpmath", "networkx", "beautifulsoup4", "soupsieve", "PyYAML", "attrs"):
        assert f"{name} " in told, name
    # PyYAML has compiled code: it runs as the real library, and the model is told so.
    assert "These run as the real compiled libraries, as in CPython: yaml." in told


def test_package_files_are_read_only_and_show_no_host_path(with_packages):
    with pytest.raises(CodeExecutionError) as raised:
        with_packages.execute("open('/packages/tabulate/__init__.py', 'a').write('x = 1')")
    assert raised.value.error_type in ("PermissionError", "OSError")
    assert "Read-only" in str(raised.value) or "Permission" in str(raised.value)
    shown = with_packages.execute(
        "import tabulate, importlib.metadata as md\n"
        "[tabulate.__file__, str(tabulate.__spec__), md.version('tabulate'), str(md.distribution('tabulate')._path)]"
    )
    assert shown[0] == "/packages/tabulate/__init__.py"
    assert all(sys.prefix not in text and "site-packages" not in text for text in shown), shown


def test_a_sessions_monkeypatching_stays_its_own(make_interp):
    first = make_interp(packages=["tabulate"])
    second = make_interp(packages=["tabulate"])
    first.execute("import tabulate\ntabulate.tabulate = lambda *a, **k: 'patched'")
    assert first.execute("tabulate.tabulate([[1]])") == "patched"
    assert second.execute("import tabulate\ntabulate.tabulate([[1]])") == "-\n1\n-"
    fork = first.fork()
    try:
        fork.execute("import importlib\nimportlib.reload(tabulate)")
        assert fork.execute("tabulate.tabulate([[1]])") == "-\n1\n-"
        assert first.execute("tabulate.tabulate([[1]])") == "patched"
    finally:
        fork.shutdown()


def test_a_compiled_module_of_a_named_package_loads_in_cpython(with_packages):
    # PyYAML's libyaml binding is a compiled module: the set's zygote imported it into its CPython.
    assert with_packages.execute("import yaml._yaml\nyaml.load('x: 1', Loader=yaml.CSafeLoader)") == {"x": 1}


def test_a_package_that_needs_a_compiled_package_runs_with_it(make_interp):
    # jsonschema needs rpds-py (Rust, compiled): both run in CPython, and jsonschema's own error is caught as itself.
    interp = make_interp(packages=["jsonschema"])
    assert interp.execute("import jsonschema\njsonschema.validate({'a': 1}, {'type': 'object'})") is None
    caught = interp.execute(
        "try:\n    jsonschema.validate(3, {'type': 'string'})\nexcept jsonschema.ValidationError as e:\n"
        "    caught = (type(e).__name__, e.message, isinstance(e, Exception))\ncaught"
    )
    assert caught == ("ValidationError", "3 is not of type 'string'", True)


SUITE_COUNTER = """
import pytest
outcomes = {}
class Count:
    def pytest_runtest_logreport(self, report):
        if report.when == "call" or not report.passed:
            outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
code = pytest.main(["--pyargs", "networkx.algorithms.tests.test_dag", "-q", "-p", "no:cacheprovider",
                    "-p", "no:faulthandler", "--capture=sys"], plugins=[Count()])
"""


def test_a_packages_own_test_suite_runs_under_pytest_in_the_sandbox(make_interp):
    # pytest itself is a pure-Python package: collecting with --pyargs drives importlib's PathFinder, logging
    # opens os.devnull, networkx's graphs rely on a __set__-only descriptor (tools/package_tests.py runs more).
    interp = make_interp(packages=["networkx", "pytest"], timeout=300)
    interp.execute(SUITE_COUNTER)
    outcomes = interp.execute("outcomes")
    assert interp.execute("int(code)") == 0, interp.execute("outcomes")
    assert outcomes.get("passed", 0) >= 60 and outcomes.get("failed", 0) == 0


def test_the_option_is_checked_on_the_host():
    # Issue 53, item 7: a bad value is a ValueError, a wrong type a TypeError, as for every other option.
    with pytest.raises(ValueError, match="no distribution named 'surely-not-installed-xyz'"):
        RustInterpreter(packages=["surely-not-installed-xyz"])
    with pytest.raises(TypeError, match="not a single str"):
        RustInterpreter(packages="sympy")
    with pytest.raises(TypeError, match="not int"):
        RustInterpreter(packages=[3])
    with pytest.raises(ValueError, match="is not a folder"):
        RustInterpreter(packages=["/surely/not/a/folder"])
    with pytest.raises(ValueError):
        RustInterpreter(timeout=-1)
    with pytest.raises(TypeError, match="sync_files"):
        RustInterpreter(sync_files="yes")


def test_packages_may_be_named_as_they_are_imported():
    # Issue 53, item 11: users think `bs4`, `yaml`, `dateutil`; the host knows which distribution provides each.
    from dspy_rust_interpreter._packages import resolve_packages

    by_import = resolve_packages(["bs4", "yaml", "dateutil"])
    by_distribution = resolve_packages(["beautifulsoup4", "pyyaml", "python-dateutil"])
    assert by_import.entries == by_distribution.entries
    assert any(name.startswith("beautifulsoup4 ") for name in by_import.distributions), by_import.distributions


def test_a_folder_of_modules_is_a_package_source(make_interp, tmp_path):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("def double(x):\n    return 2 * x\n")
    (tmp_path / "single.py").write_text("VALUE = 7\n")
    interp = make_interp(packages=[str(tmp_path)])
    assert interp.execute("import helpers, single\nhelpers.double(single.VALUE)") == 14


def test_a_package_whose_files_are_hard_links_is_read_like_any_other(make_interp, tmp_path):
    # uv installs a package by hard-linking its files from uv's cache: every file has two names. The package
    # must import, and its files be listed and read (pkgutil, importlib.resources, inspect), as CPython does.
    store, site = tmp_path / "cache", tmp_path / "site"
    (store / "linked").mkdir(parents=True)
    (store / "linked" / "__init__.py").write_text("from .tool import answer\n")
    (store / "linked" / "tool.py").write_text("def answer():\n    return 42\n")
    (store / "linked" / "data.json").write_text('{"unit": "m"}')
    (site / "linked").mkdir(parents=True)
    for name in ("__init__.py", "tool.py", "data.json"):
        os.link(store / "linked" / name, site / "linked" / name)
    interp = make_interp(packages=[str(site)])
    cell = (
        "import linked, pkgutil, inspect, json, importlib.resources\n"
        "(linked.answer(), sorted(m.name for m in pkgutil.iter_modules(linked.__path__)),\n"
        " json.loads(importlib.resources.files('linked').joinpath('data.json').read_text()),\n"
        " inspect.getsource(linked.tool.answer).splitlines()[0])"
    )
    assert interp.execute(cell) == (42, ["tool"], {"unit": "m"}, "def answer():")


def test_a_packages_data_files_are_read_as_cpython_reads_them(make_interp, tmp_path):
    # importlib.resources and pkgutil.get_data: how packages read the data files beside their modules.
    (tmp_path / "withdata" / "tables").mkdir(parents=True)
    (tmp_path / "withdata" / "__init__.py").write_text("")
    (tmp_path / "withdata" / "tables" / "__init__.py").write_text("")
    (tmp_path / "withdata" / "tables" / "units.txt").write_text("m\nkg\n")
    interp = make_interp(packages=[str(tmp_path)])
    cell = (
        "import importlib.resources, pkgutil\n"
        "files = importlib.resources.files('withdata.tables')\n"
        "(files.joinpath('units.txt').read_text(), importlib.resources.read_text('withdata.tables', 'units.txt'),\n"
        " pkgutil.get_data('withdata', 'tables/units.txt'), sorted(p.name for p in files.iterdir()),\n"
        " importlib.resources.files('withdata').joinpath('tables', 'units.txt').is_file())"
    )
    assert interp.execute(cell) == ("m\nkg\n", "m\nkg\n", b"m\nkg\n", ["__init__.py", "units.txt"], True)


def test_a_package_mount_pickles_as_a_package_mount(tmp_path):
    mount = Mount.of_package("/packages/x", tmp_path)
    copy = pickle.loads(pickle.dumps(mount))
    assert copy == mount and repr(copy) == repr(mount)
    assert copy != Mount("/packages/x", tmp_path, "ro"), "a user's read-only mount shows no hard-linked file"


def test_the_factory_carries_the_option_and_pickles():
    factory = RustInterpreter.configured(packages=["tabulate"])
    copy = pickle.loads(pickle.dumps(factory))
    interp = copy()
    try:
        assert "tabulate" in copy.execution_instructions
        assert interp.execute("import tabulate\ntabulate.__name__") == "tabulate"
    finally:
        interp.shutdown()


def test_a_package_sets_sessions_start_with_its_packages_imported(make_interp):
    # Forked from the set's own zygote, which imported them once (src/sandbox/zygote_data/bundle.rs).
    with_set = make_interp(packages=["tabulate", "more-itertools"])
    assert with_set.execute("import sys\n['tabulate' in sys.modules, 'more_itertools' in sys.modules]") == [True, True]
    assert with_set.execute("import tabulate\ntabulate.__file__") == "/packages/tabulate/__init__.py"
    without = make_interp()
    assert without.execute("import sys\n'tabulate' in sys.modules") is False
    with pytest.raises(CodeExecutionError, match="No module named 'tabulate'"):
        without.execute("import tabulate")


def test_a_session_of_a_set_rolls_back_to_a_session_of_the_same_set(make_interp):
    interp = make_interp(packages=["tabulate"], timeout=2, abandon_after=1)
    interp.execute("import tabulate\nmarker = 1")
    # A native loop the stop cannot reach: the session is abandoned and restored from the set's zygote.
    with pytest.raises(CodeExecutionError):
        interp.execute("import re\nre.match(rb'(a+)+$', b'a' * 40 + b'b')")
    assert interp.execute("import sys\n('tabulate' in sys.modules, marker)") == (True, 1)


def test_preload_modules_of_the_packages_are_imported_by_the_sets_zygote(make_interp):
    # dateutil imports its submodules lazily: preloading one makes the set's zygote import it, once.
    from dspy_rust_interpreter import _zygote

    interp = make_interp(packages=["python-dateutil"], preload=["dateutil.tz", "json"])
    assert interp.execute("import sys\n'dateutil.tz' in sys.modules") is True
    assert any(key is not None and key.preloaded == ("dateutil.tz",) for key in _zygote._zygotes)
    with pytest.raises(Exception, match='preload: module "tabulate" cannot be imported in the sandbox'):
        make_interp(packages=["python-dateutil"], preload=["tabulate"]).execute("1")


RETIRE_SCRIPT = """
import sys, time
from dspy_rust_interpreter import RustInterpreter, CodeInterpreterError, _zygote
_zygote.MAX_PACKAGE_SETS = 2
folders = sys.argv[1:]
first, second = RustInterpreter(packages=[folders[0]]), RustInterpreter(packages=[folders[1]])
print(first.execute("import mod0\\nmod0.N"), second.execute("import mod1\\nmod1.N"))
try:
    RustInterpreter(packages=[folders[2]]).execute("1")
except CodeInterpreterError as error:
    print("refused:", "live sessions of 2 different package sets" in str(error))
first.shutdown()
time.sleep(0.2)  # the killed session's processes leave the group
third = RustInterpreter(packages=[folders[2]])
print(third.execute("import mod2\\nmod2.N"), second.execute("mod1.N + 10"))
print(sorted(key.entries[0][0] for key in _zygote._zygotes if key is not None))
"""


def test_an_idle_package_sets_zygote_is_retired_to_make_room(tmp_path):
    # Sets are bounded per host process; one whose sessions are all gone makes room, one in use never does.
    import subprocess

    folders = []
    for index in range(3):
        folder = tmp_path / f"set{index}"
        folder.mkdir()
        (folder / f"mod{index}.py").write_text(f"N = {index}\n")
        folders.append(str(folder))
    done = subprocess.run([sys.executable, "-c", RETIRE_SCRIPT, *folders], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["0 1", "refused: True", "2 11", "['/packages/mod1.py', '/packages/mod2.py']"]


def _wheel(path, name, version, module_source):
    import zipfile

    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", module_source)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")
    return path


def test_a_wheel_file_is_a_package_source(make_interp, tmp_path, monkeypatch):
    from dspy_rust_interpreter import _packages

    monkeypatch.setattr(_packages, "WHEELS_CACHE", tmp_path / "cache")
    wheel = _wheel(tmp_path / "unit_helpers-1.2.0-py3-none-any.whl", "unit_helpers", "1.2.0", "def twice(x):\n    return 2 * x\n")
    interp = make_interp(packages=[str(wheel)])
    assert interp.execute(
        "import unit_helpers, importlib.metadata\n(unit_helpers.twice(21), importlib.metadata.version('unit_helpers'))"
    ) == (42, "1.2.0")


def test_a_wheel_that_escapes_its_folder_is_refused(tmp_path, monkeypatch):
    import zipfile

    from dspy_rust_interpreter import _packages

    monkeypatch.setattr(_packages, "WHEELS_CACHE", tmp_path / "cache")
    evil = tmp_path / "evil-1.0-py3-none-any.whl"
    with zipfile.ZipFile(evil, "w") as wheel:
        wheel.writestr("../../outside.py", "x = 1\n")
    with pytest.raises(ValueError, match="holds a path outside itself"):
        RustInterpreter(packages=[str(evil)])
    assert not (tmp_path / "outside.py").exists()
    not_a_wheel = tmp_path / "broken-1.0-py3-none-any.whl"
    not_a_wheel.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a wheel"):
        RustInterpreter(packages=[str(not_a_wheel)])


def test_a_package_sets_process_prepares_from_when_the_interpreter_is_made(tmp_path):
    # Issue 53, item 8: the set's zygote started at the first execute(), which then waited for the packages to
    # import (sympy: 5 s). It starts when the options are checked, so it prepares while the caller goes on.
    from dspy_rust_interpreter import _zygote

    (tmp_path / "helper_mod.py").write_text("VALUE = 3\n")
    interp = RustInterpreter(packages=[str(tmp_path)])
    try:
        zygote = _zygote._zygotes.get(interp._configuration.packages)
        assert zygote is not None and zygote.process.poll() is None, "no zygote was preparing before execute()"
        assert interp.execute("import helper_mod\nhelper_mod.VALUE") == 3
        assert _zygote._zygotes.get(interp._configuration.packages) is zygote, "execute() started another"
    finally:
        interp.shutdown()
