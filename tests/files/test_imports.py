"""`import` reads Python source from the sandbox's own filesystem (src/sandbox/machinery/_sandbox_importer.py): a module a cell
wrote, a package with submodules and relative imports, a namespace package, a folder put on `sys.path`, a
mounted folder; `importlib.reload` reads the file again; the standard library cannot be shadowed."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError, Mount

WRITE = "import os\ndef write(path, text):\n    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)\n    open(path, 'w').write(text)\n"


def test_a_module_a_cell_wrote_imports_from_the_working_directory(interp):
    interp.execute(WRITE + "write('helpers.py', 'X = 41\\ndef f():\\n    return X + 1\\n')")
    assert interp.execute("import helpers\nhelpers.f(), helpers.__file__") == (42, "/helpers.py")
    interp.execute("write('helpers.py', 'X = 1\\ndef f():\\n    return X + 1\\n')")
    assert interp.execute("import importlib\nimportlib.reload(helpers).f()") == 2


def test_packages_submodules_relative_imports_and_namespace_packages(interp):
    interp.execute(
        WRITE
        + "write('/lib/shop/__init__.py', 'NAME = \"shop\"\\n')\n"
        + "write('/lib/shop/pricing/tax.py', 'from .. import NAME\\nfrom . import rates\\nTAG = NAME + str(rates.VAT)\\n')\n"
        + "write('/lib/shop/pricing/rates.py', 'VAT = 20\\n')\n"
        + "import sys\nsys.path.append('/lib')"
    )
    assert interp.execute("from shop.pricing import tax\ntax.TAG") == "shop20"
    assert interp.execute("import shop.pricing\nlist(shop.pricing.__path__)") == ["/lib/shop/pricing"]


def test_an_error_in_an_imported_module_shows_its_file_and_line(interp):
    interp.execute(WRITE + "write('broken.py', 'x = 1\\ny = 1 / 0\\n')")
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("import broken")
    assert raised.value.error_type == "ZeroDivisionError"
    assert 'File "/broken.py", line 2, in <module>\n    y = 1 / 0\n' in raised.value.traceback
    assert "importer" not in raised.value.traceback


def test_a_missing_module_is_still_module_not_found(interp):
    with pytest.raises(CodeExecutionError, match="ModuleNotFoundError: No module named 'nowhere'"):
        interp.execute("import nowhere")


def test_a_file_cannot_shadow_the_standard_library(interp):
    interp.execute(WRITE + "write('json.py', 'raise RuntimeError(\"shadowed\")\\n')")
    assert interp.execute("import json\njson.dumps([1])") == "[1]"


def test_a_mounted_folder_of_modules_imports(make_interp, tmp_path):
    package = tmp_path / "project" / "analysis"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .stats import mean\n")
    (package / "stats.py").write_text("def mean(values):\n    return sum(values) / len(values)\n")
    interp = make_interp(mounts=[Mount("/project", str(tmp_path / "project"))])
    assert interp.execute("import sys\nsys.path.insert(0, '/project')\nimport analysis\nanalysis.mean([1, 2, 3])") == 2.0


def test_code_that_drives_importlib_finds_what_cpython_would(interp):
    # pytest's assertion hook asks CPython's PathFinder directly; pkgutil asks the path hooks;
    # spec_from_file_location reads through io.open_code.
    interp.execute(
        WRITE
        + "write('/proj/pkg/__init__.py', 'A = 1\\n')\nwrite('/proj/mod.py', 'B = 2\\n')\n"
        + "write('/proj/ns/leaf.py', 'C = 3\\n')\nimport sys\nsys.path.insert(0, '/proj')"
    )
    assert interp.execute(
        "import importlib.machinery\nspec = importlib.machinery.PathFinder.find_spec('mod')\nspec.name, spec.origin"
    ) == ("mod", "/proj/mod.py")
    assert interp.execute("import pkgutil\nsorted(m.name for m in pkgutil.iter_modules(['/proj']))") == ["mod", "pkg"]
    assert (
        interp.execute(
            "import importlib.util\nspec = importlib.util.spec_from_file_location('loose', '/proj/mod.py')\n"
            "m = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\nm.B"
        )
        == 2
    )
    assert interp.execute("import io\nio.open_code('/proj/mod.py').read()") == b"B = 2\n"
    assert interp.execute("import ns.leaf\nns.leaf.C, list(ns.__path__)") == (3, ["/proj/ns"])
