"""No host access from the sandbox, and no shared state between sandboxes."""

from __future__ import annotations

import os

import pytest

from dspy_rust_interpreter import CodeExecutionError, RustInterpreter


def _error(interp, code):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute(code)
    return info.value


# ---------------------------------------------------------------------------------------------------------
# files, environment, processes
# ---------------------------------------------------------------------------------------------------------


def test_open_host_file_fails(interp):
    error = _error(interp, "open('/etc/passwd').read()")
    assert "root:" not in str(error)


def test_io_open_host_file_fails(interp):
    error = _error(interp, "import io\nio.open('/etc/passwd').read()")
    assert "root:" not in str(error)


def test_os_environ_is_empty_dict(interp):
    assert interp.execute("import os\nos.environ") == {}


def test_os_getenv_returns_default_for_host_variables(interp):
    assert "PATH" in os.environ
    assert interp.execute("import os\nos.getenv('PATH'), os.getenv('PATH', 'dflt')") == (None, "dflt")


def test_writing_os_environ_does_not_reach_host(interp):
    interp.execute("import os\nos.environ['DSPY_RI_ISOLATION_PROBE'] = 'set'")
    assert "DSPY_RI_ISOLATION_PROBE" not in os.environ


def test_os_getcwd_is_root(interp):
    assert interp.execute("import os\nos.getcwd()") == "/"


@pytest.mark.parametrize(
    ("operation", "call"),
    [("system", "os.system('echo hi')"), ("kill", "os.kill(1, 9)"), ("putenv", "os.putenv('A', 'B')")],
)
def test_host_touching_os_functions_raise_permission_error(interp, operation, call):
    error = _error(interp, f"import os\n{call}")
    assert error.error_type == "PermissionError"
    assert f"os.{operation}() is not available in the sandbox" in str(error)


def test_os_path_join_works(interp):
    assert interp.execute("import os\nos.path.join('a', 'b', 'c.txt')") == "a/b/c.txt"


def test_os_path_helpers_work_without_filesystem(interp):
    code = "import os.path\n(os.path.splitext('x/y.tar.gz'), os.path.basename('/a/b'), os.path.normpath('a/./b/../c'))"
    assert interp.execute(code) == (("x/y.tar", ".gz"), "b", "a/c")


def test_posix_is_the_same_stand_in(interp):
    assert interp.execute("import posix\nposix.environ, posix.getcwd()") == ({}, "/")
    assert _error(interp, "import posix\nposix.system('ls')").error_type == "PermissionError"


# `subprocess`, `socket`, `threading` and `signal` are the sandbox's own (asyncio imports them): their names,
# and every start, connection, thread or handler refused (tests/isolation/test_security.py, tests/asyncio/). `gc` is
# there without the functions that reach every object (tests/isolation/test_security.py); `pickle` is the Python face of
# the native `_pickle` the sandbox always had.
@pytest.mark.parametrize("module", ["_thread_native", "_testinternalcapi", "gc_native", "cffi"])
def test_host_reaching_module_is_not_importable(interp, module):
    error = _error(interp, f"import {module}")
    assert error.error_type == "ModuleNotFoundError"
    assert f"No module named '{module}'" in str(error)


# Standard-library modules that reach the host are refused with the reason (their table: src/sandbox/vm/stdlib.rs;
# tests/sandbox/vm/test_stdlib_table.py checks every row).
@pytest.mark.parametrize(
    "module",
    [
        "_ctypes",
        "multiprocessing",
        "mmap",
        "ssl",
        "smtplib",
        "socketserver",
        "_posixsubprocess",
        "_socket",
        "_signal",
        "select",
        "_interpreters",
        "selectors",
        "_asyncio",
    ],
)
def test_host_reaching_standard_module_is_refused_with_its_reason(interp, module):
    error = _error(interp, f"import {module}")
    assert error.error_type == "ModuleNotFoundError"
    assert f"module '{module}' is not available in the sandbox: it " in str(error)


# A code object as CPython marshals it (type 'c', with and without the back-reference flag), and one made here.
@pytest.mark.parametrize(
    "code",
    [
        "marshal.loads(b'\\xe3' + bytes(40))",
        "marshal.loads(b'c' + bytes(40))",
        "marshal.dumps(compile('1', 'x', 'eval'))",
        "marshal.dump((lambda: 1).__code__, io.BytesIO())",
        "marshal.loads(b')\\x01\\xe3' + bytes(40))",
    ],
)
def test_marshal_refuses_code_objects(interp, code):
    error = _error(interp, f"import marshal, io\n{code}")
    assert error.error_type == "ValueError"
    assert "marshal does not load or dump code objects in the sandbox" in str(error)


def test_marshal_round_trips_data_and_loads_what_cpython_wrote(interp):
    value = {"a": [1, 2.5, None, True], "b": (b"x", "é", 2**100, -(2**70)), "c": {1, 2}, "d": frozenset(), 3: 1j}
    # CPython 3.13's marshal.dumps of the same value: interned strings, flagged objects and a back-reference.
    written = (
        "fbda01615b04000000e901000000e700000000000004404e54da01622904f30100000078f402000000c3a96c070000000000000000"
        "0000000000000000046cfbffffff00000000000000000004da01633c020000007202000000e902000000da01643e00000000e90300"
        "0000f90000000000000000000000000000f03f30"
    )
    assert interp.execute(f"import marshal\nmarshal.loads(marshal.dumps({value!r})) == {value!r}") is True
    assert interp.execute(f"marshal.loads(bytes.fromhex({written!r})) == {value!r}") is True
    assert interp.execute("import io\nf = io.BytesIO(marshal.dumps([1, 'a']) + b'rest')\n(marshal.load(f), f.read())") == (
        [1, "a"],
        b"rest",
    )


def test_deleting_os_from_sys_modules_reimports_the_stand_in(interp):
    code = "import os, sys\ndel sys.modules['os']\ndel os\nimport os\nos.environ, os.getcwd()"
    assert interp.execute(code) == ({}, "/")


def test_os_and_posix_are_the_stand_in_after_both_are_dropped(interp):
    code = "import os, posix, sys\nsys.modules.pop('os')\nsys.modules.pop('posix', None)\nimport posix, os\nposix.environ, os.environ"
    assert interp.execute(code) == ({}, {})


# ---------------------------------------------------------------------------------------------------------
# sandboxes do not share interpreter state
# ---------------------------------------------------------------------------------------------------------


def test_sys_modules_changes_do_not_reach_another_interpreter(interp):
    interp.execute("import sys\nsys.modules['json'] = 'hacked'")
    assert interp.execute("import sys\nsys.modules['json']") == "hacked"
    other = RustInterpreter()
    try:
        assert other.execute("import json\njson.dumps([1])") == "[1]"
    finally:
        other.shutdown()


def test_builtins_changes_do_not_reach_another_interpreter(interp):
    assert interp.execute("import builtins\nbuiltins.len = lambda x: 99\nlen([1])") == 99
    other = RustInterpreter()
    try:
        assert other.execute("len([1])") == 1
    finally:
        other.shutdown()


def test_module_attribute_changes_do_not_reach_another_interpreter(interp):
    interp.execute("import math\nmath.pi = 3")
    other = RustInterpreter()
    try:
        assert other.execute("import math\nmath.pi") == pytest.approx(3.141592653589793)
    finally:
        other.shutdown()


def test_sandbox_os_stand_in_changes_do_not_reach_another_interpreter(interp):
    interp.execute("import os\nos.environ['LEAK'] = '1'\nos.getcwd = lambda: '/leaked'")
    other = RustInterpreter()
    try:
        assert other.execute("import os\nos.environ, os.getcwd()") == ({}, "/")
    finally:
        other.shutdown()


# ---------------------------------------------------------------------------------------------------------
# what the sandbox says about the host
# ---------------------------------------------------------------------------------------------------------


def test_open_finds_the_sessions_own_files_not_the_hosts(interp):
    error = _error(interp, "open('/etc/hostname')")
    assert error.error_type == "FileNotFoundError"
    assert "No such file or directory: '/etc/hostname'" in str(error)
    assert interp.execute("open('notes.txt', 'w').write('mine')\nopen('/notes.txt').read()") == "mine"


def test_sys_does_not_describe_the_host_installation(interp):
    assert interp.execute("import sys\n[sys.executable, sys.prefix, sys.exec_prefix, sys.path]") == [
        "",
        "",
        "",
        ["", "/packages"],
    ]


def test_input_explains_there_is_no_standard_input(interp):
    error = _error(interp, "input('name? ')")
    assert error.error_type == "RuntimeError"
    assert "input() is not available in the sandbox" in str(error)
