"""The sandbox's table of the standard library (src/sandbox/vm/stdlib.rs) is whole and true: every module of the
reference CPython's standard library has a row; every available or confined one imports in a fresh session,
every refused one fails with ImportError in its own words, never a bare "No module named"; docs/stdlib.md
shows the table as it is."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from cpython import reference_python

from dspy_rust_interpreter import _native

ROOT = Path(__file__).resolve().parents[3]
ROWS = _native.stdlib_modules()

IMPORT_EACH = """
import importlib, io, contextlib
outcomes = {}
for name in NAMES:
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # `this` prints the Zen
            importlib.import_module(name)
        outcomes[name] = None
    except BaseException as error:
        outcomes[name] = (type(error).__name__, str(error))
outcomes
"""


def test_every_module_of_cpythons_standard_library_has_a_row():
    listed = subprocess.run(
        [reference_python(), "-c", "import sys; print(sorted(sys.stdlib_module_names))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    missing = sorted(set(ast.literal_eval(listed)) - {name for name, *_ in ROWS})
    assert not missing, f"modules of CPython's standard library with no row in src/sandbox/vm/stdlib.rs: {missing}"
    names = [name for name, *_ in ROWS]
    assert names == sorted(set(names)), "the table has a name twice"


def test_each_row_holds_in_a_fresh_session(make_interp):
    outcomes = make_interp().execute(IMPORT_EACH, {"NAMES": [name for name, *_ in ROWS]})
    wrong = []
    for name, standing, _source, note in ROWS:
        outcome = outcomes[name]
        if standing in ("available", "confined"):
            if outcome is not None:
                wrong.append(f"{name} ({standing}) does not import: {outcome}")
        elif outcome != ("ModuleNotFoundError", f"module '{name}' is not available in the sandbox: {note}"):
            wrong.append(f"{name} (refused) fails with {outcome}")
    assert not wrong, "\n".join(wrong)


def test_the_docs_show_the_table_as_it_is():
    checked = subprocess.run([sys.executable, str(ROOT / "tools" / "stdlib_table.py"), "--check"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
