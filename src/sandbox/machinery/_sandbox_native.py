"""The native module a stand-in is built on (``zlib``, ``gc``, ``_csv``, ``_sqlite3``): the sandbox hands it over
as ``<name>_native`` in ``sys.modules`` only while the stand-in first imports (it is not importable by name), so
a stand-in imported again (its module deleted from ``sys.modules``, or reloaded) cannot have it."""

import sys


def handed_over(name, advice=""):
    """The native module of stand-in ``name``; ImportError once it is gone, saying what to do (``advice`` first)."""
    native = sys.modules.get(name + "_native")
    if native is None:
        raise ImportError(
            f"{name} can be imported once per session, when the sandbox is built; it was removed from sys.modules: "
            f"{advice}put back the {name} you removed"
        )
    return native


def adopt(native, namespace):
    """Everything public of ``native``, as it is, into a stand-in's ``namespace`` (its globals)."""
    namespace.update({name: value for name, value in vars(native).items() if not name.startswith("__")})
