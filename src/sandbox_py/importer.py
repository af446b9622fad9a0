"""_sandbox_importer: ``import`` of Python source from the sandbox's own filesystem.

CPython imports from the folders on ``sys.path`` through its path finder, which reads the host's files; the
sandbox has no host files, so this finder (last on ``sys.meta_path``, after the standard library's) looks in the
sandbox's filesystem instead: for each ``sys.path`` entry (``''`` is the working directory, as in CPython's
REPL, and gives absolute paths as CPython's finder does), a package ``name/__init__.py``, a module ``name.py``, or else a folder ``name`` as a namespace package.
Reading goes through the same ``open`` as any file access (the in-memory tree, or a mount the host serves and
checks), so a model can write a module and import it, and a mounted project or folder of pure-Python packages
imports. Nothing is cached, so ``importlib.invalidate_caches()`` has nothing to do and ``importlib.reload``
reads the file again; no bytecode is written. The standard library comes first: a file cannot shadow it."""

import sys
from importlib.machinery import ModuleSpec
from importlib.util import decode_source
from os import getcwd as _getcwd
from os import stat as _stat
from os.path import join as _join

_S_IFMT, _S_IFDIR, _S_IFREG = 0o170000, 0o040000, 0o100000

# The user's packages held in memory by a package set's zygote (`sandbox::bundle`): `_bundle_read(path)` gives
# a file's bytes or None, `_bundle_kind(path)` its stat type bits or 0. The same files are mounted at the same
# paths; reading them from memory saves the zygote's imports (and any later one) a round trip to the host.
_bundle_read = _bundle_kind = None


def read_from(read, kind):
    global _bundle_read, _bundle_kind
    _bundle_read, _bundle_kind = read, kind


def _kind(path):
    if _bundle_kind is not None:
        kind = _bundle_kind(path)
        if kind:
            return kind
    try:
        mode = _stat(path).st_mode & _S_IFMT
    except (OSError, ValueError):
        return None
    return mode


class SourceLoader:
    """Loads one ``.py`` file of the sandbox's filesystem."""

    def __init__(self, fullname, path):
        self.name = fullname
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The spec has no location (with one, importlib would ask for a bytecode cache path, which the sandbox
        # has none of): `__file__` is set here.
        module.__file__ = self.path
        code = compile(self.get_source(module.__name__), self.path, "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, fullname):
        data = _bundle_read(self.path) if _bundle_read is not None else None
        if data is None:
            with open(self.path, "rb") as file:
                data = file.read()
        return decode_source(data)

    def get_filename(self, fullname):
        return self.path

    def is_package(self, fullname):
        return self.path.endswith("/__init__.py")

    def get_resource_reader(self, fullname):
        return None


class NamespaceLoader:
    """A folder without ``__init__.py``: a package with nothing to run."""

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        pass

    @staticmethod
    def is_package(fullname):
        return True


class SandboxPathFinder:
    """Finds modules and packages in the ``sys.path`` folders (or a package's ``__path__``) of the sandbox's
    filesystem."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        entries = sys.path if path is None else path
        tail = fullname.rpartition(".")[2]
        namespace = []
        for entry in list(entries):
            if not isinstance(entry, str):
                continue
            folder = _join(entry or _getcwd(), tail)
            init = _join(folder, "__init__.py")
            if _kind(init) == _S_IFREG:
                spec = ModuleSpec(fullname, SourceLoader(fullname, init), origin=init, is_package=True)
                spec.submodule_search_locations = [folder]
                return spec
            module = folder + ".py"
            if _kind(module) == _S_IFREG:
                return ModuleSpec(fullname, SourceLoader(fullname, module), origin=module)
            if _kind(folder) == _S_IFDIR:
                namespace.append(folder)
        if namespace:
            spec = ModuleSpec(fullname, NamespaceLoader, is_package=True)
            spec.submodule_search_locations = namespace
            return spec
        return None

    @staticmethod
    def invalidate_caches():
        pass

    @staticmethod
    def find_distributions(context=None):
        """The installed distributions (``*.dist-info``) in the same folders, for ``importlib.metadata``."""
        from importlib.metadata import DistributionFinder, MetadataPathFinder

        return MetadataPathFinder.find_distributions(context or DistributionFinder.Context())


def install():
    sys.meta_path.append(SandboxPathFinder)
