"""Run CPython's own regression tests inside the sandbox and report a pass rate per test module (issue 16).

The tests are CPython's `Lib/test` of the newest CPython 3.12+ on the machine (found as the fidelity tests
find it: tests/cpython.py, or REFERENCE_PYTHON), used as data: mounted read-only into each session at
/cpython/test and imported from there by a small finder, never copied. Each test module gets a fresh
session; each test runs as one `execute()`, so a test that hangs or kills its process is stopped by the
session's limits, counted as an error, and the session rolls back and goes on with the next test.

    python tools/cpython_tests.py                      # the default modules, a table on stdout
    python tools/cpython_tests.py test_bisect test_heapq --json out.json

A module that cannot even be imported in the sandbox (a missing module, a helper CPython-only) reports the
import error and no tests. The JSON also holds, per module, each failing test with the last line of its error.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cpython import reference_python  # noqa: E402

from dspy_rust_interpreter import CodeExecutionError, Mount, RustInterpreter  # noqa: E402

DEFAULT_MODULES = [
    "test_grammar",
    "test_builtin",
    "test_exceptions",
    "test_str",
    "test_list",
    "test_dict",
    "test_set",
    "test_int",
    "test_float",
    "test_json",
    "test_re",
    "test_collections",
    "test_itertools",
    "test_functools",
    "test_datetime",
    "test_statistics",
    "test_bisect",
    "test_heapq",
    "test_string",
    "test_textwrap",
    "test_csv",
    "test_dataclasses",
    "test_enum",
    "test_typing",
    "test_tuple",
    "test_bool",
    "test_math",
    "test_operator",
    "test_fractions",
    "test_decimal",
    "test_random",
    "test_difflib",
    "test_base64",
    "test_hashlib",
    "test_fnmatch",
    "test_shlex",
    "test_calendar",
    "test_contextlib",
    "test_copy",
    "test_pprint",
    "test_graphlib",
    "test_ipaddress",
    "test_uuid",
    "test_zlib",
    "test_struct",
    "test_array",
    "test_unicodedata",
    "test_binascii",
    "test_keyword",
    "test_types",
    "test_abc",
    "test_sort",
    "test_range",
    # the rest of what the sandbox offers (not asyncio, io and logging: threads and real files throughout)
    "test_glob",
    "test_tomllib",
    "test_argparse",
    "test_pickle",
    "test_html",
    "test_secrets",
    "test_hmac",
    "test_weakref",
    "test_context",
    "test_cmath",
    "test_stat",
    "test_posixpath",
    "test_genericpath",
    "test_reprlib",
    "test_quopri",
    "test_colorsys",
    "test_opcodes",
    "test_traceback",
    "test_tokenize",
    "test_tempfile",
    "test_shutil",
    "test_pathlib",
    "test_inspect",
    "test_ast",
    "test_codecs",
    "test_time",
    "test_unittest",
    "test_doctest",
    # the modules the sandbox offers since issue 28 (the standard library as one table: docs/stdlib.md)
    "test_urlparse",
    "test_configparser",
    "test_gzip",
    "test_queue",
    "test_zoneinfo",
    "test_sqlite3",
    "test_pydoc",
    "test_pickletools",
    "test_optparse",
    "test_getopt",
    "test_plistlib",
    "test_sched",
    "test_mailbox",
    "test_fileinput",
    "test_filecmp",
    "test_cprofile",
    "test_profile",
    "test_pstats",
    "test_timeit",
    "test_wave",
    "test_shelve",
    "test_dbm",
    "test_dbm_dumb",
    "test_xml_etree",
    "test_minidom",
    "test_sax",
    "test_pulldom",
    "test_email",
    "test_htmlparser",
    "test_tarfile",
    "test_zipfile",
    "test_bz2",
    "test_lzma",
    "test_mimetypes",
    "test_httplib",
    "test_symtable",
    "test_stringprep",
    "test_netrc",
    "test_pyclbr",
    "test_tabnanny",
    "test_trace",
    "test_zipapp",
    "test_compileall",
    "test_cmd",
    "test_code_module",
    "test_bdb",
    "test_sysconfig",
    "test_platform",
    "test_multibytecodec",
    "test_codecencodings_cn",
    "test_codecencodings_jp",
    "test_rlcompleter",
    "test_runpy",
    "test_wsgiref",
    "test_urllib_response",
    "test_robotparser",
]
MOUNT = "/cpython/test"
# Per test: CPython's own suite runs each in well under a second; the sandbox is a few times slower.
TEST_TIMEOUT = 30.0

# Sandbox code: import `test` and `test.*` from the mounted folder. Its own loader, for one thing the sandbox's
# importer does not do: CPython 3.13's tests read a module's `__annotations__` as a name, which 3.14 (the
# sandbox's language: PEP 649/749, lazy annotations) no longer binds, so `test_grammar`, `test_int`,
# `test_float`, `test_typing` and `test_tokenize` stopped at import; each module starts with an empty one.
FINDER = f"""
import sys, importlib.util, os

class _CPythonTests:
    root = {MOUNT!r}

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "test" and not name.startswith("test."):
            return None
        base = os.path.join(cls.root, *name.split(".")[1:])
        for candidate, package in ((os.path.join(base, "__init__.py"), True), (base + ".py", False)):
            if os.path.isfile(candidate):
                spec = importlib.util.spec_from_loader(name, cls, origin=candidate, is_package=package)
                if package:
                    spec.submodule_search_locations = [base]
                return spec
        return None

    @staticmethod
    def create_module(spec):
        return None

    @classmethod
    def exec_module(cls, module):
        path = module.__spec__.origin
        module.__file__ = path
        module.__dict__.setdefault("__annotations__", {{}})
        with open(path, encoding="utf-8") as source:
            exec(compile(source.read(), path, "exec"), module.__dict__)

sys.meta_path.insert(0, _CPythonTests)
# The sandbox's standard library is all frozen: CPython's tests that ask for modules from source
# (`import_fresh_module(..., usefrozen=False)`) get the frozen ones.
import _imp
_imp._override_frozen_modules_for_tests = lambda override: None
"""

LOAD = """
import unittest, importlib
_module = importlib.import_module("test." + {name!r})
_tests = {{}}
def _walk(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            _walk(item)
        else:
            _tests[item.id()] = item
_walk(unittest.defaultTestLoader.loadTestsFromModule(_module))
# unittest runs a module's setUpModule before its tests (test_xml_etree and test_zoneinfo pick the module under
# test there); each test here runs on its own, so it runs once, now.
if hasattr(_module, "setUpModule"):
    _module.setUpModule()
_classes_set_up = set()
print()
print(len(_tests))
"""

RUN_ONE = """
_result = unittest.TestResult()
_test = _tests[{test_id!r}]
# As a suite would: the class's setUpClass once before its first test (a failure there is this test's error).
_class = type(_test)
if _class not in _classes_set_up:
    _classes_set_up.add(_class)
    try:
        _class.setUpClass()
    except unittest.SkipTest:
        pass
    except Exception as _error:
        _result.errors.append((_test, f"setUpClass: {{type(_error).__name__}}: {{_error}}"))
if not _result.errors:
    _test.run(_result)
_problems = [text.strip().splitlines()[-1] for _, text in _result.failures + _result.errors]
print()
print(_problems[0][:300] if _problems else "unexpected success" if _result.unexpectedSuccesses else "")
print("skipped" if _result.skipped else "failed" if _result.failures or _result.unexpectedSuccesses
      else "error" if _result.errors else "passed")
"""


def cpython_test_folder(python: str) -> str:
    done = subprocess.run(
        [python, "-c", "import os, test; print(os.path.dirname(test.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0][:160] if str(error).strip() else type(error).__name__


def stdout_of(text: str) -> str:
    """What a run printed to stdout: its output without what it wrote to stderr (warnings a test raises)."""
    if text.startswith("[stderr]\n"):
        return ""
    return text.split("\n[stderr]\n", 1)[0]


def run_module(name: str, folder: str) -> dict:
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    problems: dict[str, str] = {}
    started = time.monotonic()
    interp = RustInterpreter(timeout=TEST_TIMEOUT, mounts=[Mount(MOUNT, folder, mode="ro")])
    try:
        try:
            interp.execute(FINDER)
            # What a test prints (warnings too) comes before the last line, which is ours.
            total = int(stdout_of(interp.execute(LOAD.format(name=name))).strip().splitlines()[-1])
        except CodeExecutionError as error:
            return {"module": name, "import_error": first_line(error), **counts, "seconds": 0.0, "problems": problems}
        ids = stdout_of(interp.execute("print('\\n'.join(_tests))")).splitlines()[-total:] if total else []
        for test_id in ids:
            try:
                printed = stdout_of(interp.execute(RUN_ONE.format(test_id=test_id)) or "").strip().splitlines()
                outcome, detail = (printed[-1], printed[-2] if len(printed) > 1 else "") if printed else ("error", "")
            except CodeExecutionError as error:
                outcome, detail = "error", f"stopped: {first_line(error)}"  # a limit, or the session rolled back
            outcome = outcome if outcome in counts else "error"
            counts[outcome] += 1
            if outcome in ("failed", "error"):
                problems[test_id] = detail
    finally:
        interp.shutdown()
    return {"module": name, "import_error": None, **counts, "seconds": round(time.monotonic() - started, 1), "problems": problems}


def pass_rate(row: dict) -> float | None:
    counted = row["passed"] + row["failed"] + row["error"]
    return row["passed"] / counted if counted else None


def table(rows: list[dict], python: str) -> str:
    lines = [
        f"CPython's regression tests in the sandbox (tests from {python}):",
        "",
        "| module | passed | failed | errors | skipped | pass rate |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row["import_error"]:
            lines.append(f"| {row['module']} | | | | | not importable: {row['import_error']} |")
            continue
        rate = pass_rate(row)
        shown = f"{rate:.0%}" if rate is not None else "-"
        lines.append(f"| {row['module']} | {row['passed']} | {row['failed']} | {row['error']} | {row['skipped']} | {shown} |")
    passed = sum(row["passed"] for row in rows)
    counted = sum(row["passed"] + row["failed"] + row["error"] for row in rows)
    lines += ["", f"all: {passed} of {counted} tests passed ({passed / counted:.0%})" if counted else "all: no tests ran"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="test modules (default: the issue's list)")
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args()
    python = reference_python()
    folder = cpython_test_folder(python)
    rows = []
    for name in dict.fromkeys(args.modules or DEFAULT_MODULES):
        row = run_module(name, folder)
        rows.append(row)
        summary = {key: value for key, value in row.items() if key != "problems"}
        print(f"{name}: {summary}", file=sys.stderr, flush=True)
    print(table(rows, python))
    if args.json:
        Path(args.json).write_text(json.dumps({"python": python, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
