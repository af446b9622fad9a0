"""The host's compiled packages in the sandbox (src/sandbox/cpython/): numpy, pandas and matplotlib run as the real
libraries, objects cross as values or as handles whose classes mirror CPython's, sandbox functions are called back,
exceptions cross as their own classes both ways, and CPython's files, output, warnings, memory and time are the
session's."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError, RustInterpreter

PACKAGES = ["numpy", "pandas", "matplotlib"]


@pytest.fixture(scope="module")
def data():
    interp = RustInterpreter(packages=PACKAGES, timeout=60)
    interp.execute("import numpy as np\nimport pandas as pd")
    yield interp
    interp.shutdown()


def error_of(interp, code: str) -> CodeExecutionError:
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(code)
    return raised.value


def test_arrays_and_frames_are_the_real_ones(data):
    assert data.execute("a = np.arange(6).reshape(2, 3)\nrepr(a * 2)") == "array([[ 0,  2,  4],\n       [ 6,  8, 10]])"
    assert data.execute("(isinstance(a, np.ndarray), type(a).__name__, type(a).__module__, a.shape, a.dtype.name)") == (
        True,
        "ndarray",
        "numpy",
        (2, 3),
        "int64",
    )
    frame = data.execute("df = pd.DataFrame({'k': ['a', 'b', 'a'], 'v': [1, 2, 3]})\nisinstance(df, pd.DataFrame), str(df)")
    assert frame == (True, "   k  v\n0  a  1\n1  b  2\n2  a  3")
    assert data.execute("df.groupby('k')['v'].sum().to_dict()") == {"a": 4, "b": 2}


def test_numpy_scalars_mix_with_sandbox_numbers_as_in_cpython(data):
    shown = data.execute(
        "x = np.float64(2.5)\n"
        "(repr(x + 1), round(x), f'{x:.2f}', isinstance(x, float), int(np.int64(3)) + 1, repr(np.int64(3) + 1))"
    )
    assert shown == ("np.float64(3.5)", 2, "2.50", True, 4, "np.int64(4)")
    assert data.execute("import json\njson.dumps({'n': int(np.int64(7)), 'x': np.float64(0.5)})") == '{"n": 7, "x": 0.5}'
    # A trailing value that holds numpy scalars comes back holding them (tests/packages/cpython/test_library_values.py).
    back = data.execute("sorted([np.int64(3), 1, np.float64(2.0)])")
    assert repr(back) == "[1, np.float64(2.0), np.int64(3)]"


def test_an_object_that_crosses_again_is_the_same_handle(data):
    assert data.execute("b = np.arange(3)\nview = b[1:]\n(view.base is b, view.base is view.base, b is not np.arange(3))") == (
        True,
        True,
        True,
    )


def test_sandbox_functions_are_called_back(data):
    assert data.execute("df.apply(lambda r: r['v'] * 10, axis=1).tolist()") == [10, 20, 30]
    assert data.execute("df.sort_values('k', key=lambda s: s.str.upper(), kind='stable')['v'].tolist()") == [1, 3, 2]
    assert data.execute("df.groupby('k')['v'].agg(lambda s: s.max() - s.min()).to_dict()") == {"a": 2, "b": 0}
    assert data.execute("np.vectorize(lambda v: v * v)(np.arange(4)).tolist()") == [0, 1, 4, 9]
    # A sandbox function is callable and not iterable on CPython's side, as pandas' checks expect.
    assert data.execute("df['v'].map(str).tolist()") == ["1", "2", "3"]


def test_exceptions_cross_as_their_own_classes(data):
    assert data.execute("try:\n    df['nope']\nexcept KeyError as e:\n    r = repr(e)\nr") == "KeyError('nope')"
    error = error_of(data, "np.array([1, 2]) + np.array([1, 2, 3])")
    assert error.error_type == "ValueError"
    assert "operands could not be broadcast together with shapes (2,) (3,)" in str(error)
    # A package's own exception class is mirrored: caught by its class and by the builtin class it derives from.
    caught = data.execute(
        "try:\n    np.linalg.inv(np.zeros((2, 2)))\nexcept np.linalg.LinAlgError as e:\n"
        "    r = (type(e).__name__, str(e), isinstance(e, ValueError))\nr"
    )
    assert caught == ("LinAlgError", "Singular matrix", True)
    # A sandbox exception raised in a callback comes back as itself.
    back = data.execute(
        "class Mine(Exception):\n    pass\n"
        "def bad(row):\n    raise Mine('from the callback')\n"
        "try:\n    df.apply(bad, axis=1)\nexcept Mine as e:\n    r = ('caught', str(e))\nr"
    )
    assert back == ("caught", "from the callback")


def test_printing_inside_the_libraries_is_the_cells_output(data):
    shown = data.execute("df.info()")
    assert "<class 'pandas" in shown and "RangeIndex: 3 entries, 0 to 2" in shown


def test_library_warnings_reach_the_sandboxs_filters(make_interp):
    interp = make_interp(packages=["numpy"])
    shown = interp.execute("import numpy as np\nprint((np.array([1.0]) / 0).tolist())")
    assert "[inf]" in shown and "RuntimeWarning: divide by zero encountered in divide" in shown
    quiet = interp.execute("import warnings\nwarnings.simplefilter('ignore')\nprint((np.array([2.0]) / 0).tolist())")
    assert quiet == "[inf]\n"


def test_the_libraries_files_are_the_sessions(data):
    assert data.execute("df.to_csv('frame.csv', index=False)\nopen('frame.csv').read()") == "k,v\na,1\nb,2\na,3\n"
    assert data.execute("int(pd.read_csv('frame.csv')['v'].sum())") == 6
    assert data.execute("np.save('a.npy', np.arange(3))\nnp.load('a.npy').tolist()") == [0, 1, 2]
    error = error_of(data, "pd.read_csv('missing.csv')")
    assert error.error_type == "FileNotFoundError" and "missing.csv" in str(error)
    # A chart the model saves is a PNG among the session's files.
    data.execute(
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2, 3], [2, 4, 1])\n"
        "ax.set_title('Sales')\nplt.savefig('chart.png')\nplt.close(fig)"
    )
    assert data.execute("open('chart.png', 'rb').read(8)") == b"\x89PNG\r\n\x1a\n"


def test_allocations_count_against_the_memory_limit(make_interp):
    interp = make_interp(packages=["numpy"], memory_limit=256 * 2**20)
    error = error_of(interp, "import numpy as np\nbig = np.zeros(10**10)")
    assert error.error_type == "MemoryError"
    assert "Unable to allocate 74.5 GiB for an array with shape (10000000000,) and data type float64" in str(error)
    error = error_of(interp, "kept = [np.ones(10**7) for _ in range(8)]")
    assert error.error_type == "MemoryError"
    assert interp.execute("float(np.ones(10).sum())") == 10.0


def test_cpythons_own_objects_count_against_the_memory_limit(make_interp):
    # A list of 30 million Python ints is CPython's memory, not numpy's: over a 256 MiB limit it is a MemoryError in
    # the cell, and the session lives.
    interp = make_interp(packages=["numpy"], memory_limit=256 * 2**20)
    error = error_of(interp, "import numpy as np\nbig = np.arange(3 * 10**7).tolist()")
    assert error.error_type == "MemoryError"
    assert interp.execute("len(np.arange(1000).tolist())") == 1000


def test_a_long_operation_in_the_libraries_ends_at_the_time_limit(make_interp):
    interp = make_interp(packages=["numpy", "pandas"], timeout=2)
    interp.execute("import pandas as pd\ndf = pd.DataFrame({'v': range(1000)})")
    error = error_of(interp, "while True:\n    df.apply(lambda r: r['v'], axis=1)")
    assert error.error_type == "TimeoutError"
    assert interp.execute("len(df)") == 1000


def test_each_session_draws_its_own_random_numbers(make_interp):
    draws = {make_interp(packages=["numpy"]).execute("import numpy as np\nnp.random.rand()") for _ in range(3)}
    assert len(draws) == 3


def test_a_module_the_packages_do_not_have_is_not_found(data):
    error = error_of(data, "import numpy.not_a_module")
    assert error.error_type == "ModuleNotFoundError"
    assert "numpy.not_a_module" in str(error)


def test_the_standard_librarys_modules_are_the_sandboxs_own(data):
    # A module of CPython's standard library reached through a package is the sandbox's module of that name.
    assert data.execute("import os\n(np.lib._npyio_impl.os is os, pd.io.common.codecs.__name__)") == (True, "codecs")
    # What is neither the packages' nor a value (a module's loader, in a function's globals) is not handed out.
    error = error_of(data, "pd.read_csv.__globals__")
    assert error.error_type == "TypeError" and "the sandbox does not hand out CPython's" in str(error)
    # Classes and functions of the standard library a package holds are the sandbox's own too.
    assert data.execute(
        "import io, pathlib, abc\n(pd.io.common.BytesIO is io.BytesIO, pd.io.common.Path is pathlib.Path, "
        "pd.io.common.abstractmethod is abc.abstractmethod)"
    ) == (True, True, True)
