"""`preload=`: modules imported while the sandbox is built, fresh for each session."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import RustInterpreter


def test_preloaded_module_is_imported_before_the_first_execute(make_interp):
    interp = make_interp(preload=["difflib"])
    assert interp.execute("import sys\n'difflib' in sys.modules") is True


def test_without_preload_the_module_is_not_imported(interp):
    assert interp.execute("import sys\n'difflib' in sys.modules") is False


def test_common_modules_come_imported_from_the_zygote(interp):
    assert interp.execute("import sys\n[m in sys.modules for m in ('json', 're', 'math', 'collections')]") == [True] * 4


def test_preloaded_module_is_not_shared_between_sessions(make_interp):
    first = make_interp(preload=["json"])
    second = make_interp(preload=["json"])
    first.execute("import json\njson.planted = 1")
    assert second.execute("import json\nhasattr(json, 'planted')") is False


def test_preloaded_submodule_is_imported(make_interp):
    interp = make_interp(preload=["collections.abc"])
    assert interp.execute("import sys\n'collections.abc' in sys.modules") is True


def test_a_module_outside_the_sandbox_cannot_be_preloaded(make_interp):
    interp = make_interp(preload=["pty"])
    with pytest.raises(
        ValueError, match=r'preload: module "pty" cannot be imported in the sandbox \(ModuleNotFoundError: .*not available'
    ):
        interp.execute("1")


@pytest.mark.parametrize("preload", ["json", [1], ["not a name"], None])
def test_preload_must_be_a_list_of_module_names(preload):
    with pytest.raises(ValueError, match="preload must be a list or tuple of module names"):
        RustInterpreter(preload=preload)
