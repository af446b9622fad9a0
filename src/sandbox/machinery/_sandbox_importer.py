"""_sandbox_importer: ``import`` of Python source from the sandbox's own filesystem.

CPython imports from the folders on ``sys.path`` through its path finder (``importlib.machinery.PathFinder``),
which asks a path hook for a finder per folder; CPython's hook reads the host's files. The sandbox keeps
CPython's ``PathFinder`` (last on ``sys.meta_path``, after the standard library's finders, so a file cannot
shadow the standard library) and gives it a hook of its own, ``FolderFinder``, which looks in the sandbox's
filesystem: a package ``name/__init__.py``, a module ``name.py``, or else a folder ``name`` as a portion of a
namespace package. ``''`` on ``sys.path`` is the working directory, as in CPython's REPL. Reading goes through
the same ``open`` as any file access (the in-memory tree, or a mount the host serves and checks), so a model can
write a module and import it, and a mounted project or folder of pure-Python packages imports. Code that drives
importlib itself finds what CPython's would: ``PathFinder.find_spec`` (pytest's assertion hook),
``pkgutil.iter_modules``, ``importlib.util.spec_from_file_location``. A folder finder caches nothing, so
``importlib.invalidate_caches()`` has nothing to do and ``importlib.reload`` reads the file again; no bytecode is
written."""

import sys
from importlib.machinery import ModuleSpec
from importlib.util import decode_source
from os import getcwd as _getcwd
from os import stat as _stat
from os.path import join as _join

_S_IFMT, _S_IFDIR, _S_IFREG = 0o170000, 0o040000, 0o100000
_COMPILED = (".so", ".pyd", ".dylib")

# The user's packages held in memory by a package set's zygote (`sandbox::zygote_data::bundle`): `_bundle_read(path)` gives
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
        return decode_source(self.get_data(self.path))

    def get_data(self, path):
        """The bytes of a file of the package's (``pkgutil.get_data`` asks this), as CPython's file loaders
        answer."""
        data = _bundle_read(path) if _bundle_read is not None else None
        if data is None:
            with open(path, "rb") as file:
                data = file.read()
        return data

    def get_filename(self, fullname):
        return self.path

    def is_package(self, fullname):
        return self.path.endswith("/__init__.py")

    def get_resource_reader(self, fullname):
        # What CPython's file loaders answer: `importlib.resources.files(package)` and the readers built on it
        # read the package's folder (its data files) through the sandbox's filesystem.
        from importlib.readers import FileReader

        return FileReader(self)


class FolderFinder:
    """The finder of one ``sys.path`` folder (or one folder of a package's ``__path__``) of the sandbox's
    filesystem: what ``sys.path_hooks`` makes of an entry."""

    def __init__(self, path):
        self.path = path

    @classmethod
    def path_hook(cls, path):
        if not isinstance(path, str):
            raise ImportError("only str paths are searched", path=path)
        return cls(path)

    def find_spec(self, fullname, target=None):
        tail = fullname.rpartition(".")[2]
        folder = _join(self.path or _getcwd(), tail)
        init = _join(folder, "__init__.py")
        if _kind(init) == _S_IFREG:
            spec = ModuleSpec(fullname, SourceLoader(fullname, init), origin=init, is_package=True)
            spec.submodule_search_locations = [folder]
            return spec
        module = folder + ".py"
        if _kind(module) == _S_IFREG:
            return ModuleSpec(fullname, SourceLoader(fullname, module), origin=module)
        if _kind(folder) == _S_IFDIR:
            # A portion of a namespace package: PathFinder gathers the portions of every entry.
            spec = ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [folder]
            return spec
        compiled = self._compiled(tail)
        if compiled:
            # CPython would load it from here: say why the sandbox does not, rather than "No module named".
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: {compiled} is a compiled extension module, and the sandbox "
                "loads no native code; use a pure-Python package (or one with a pure-Python fallback)",
                name=fullname,
            )
        return None

    def _compiled(self, tail):
        """The file name of a compiled module ``tail`` in this folder (``tail.cpython-311-….so``), or None."""
        from os import listdir

        try:
            names = listdir(self.path)
        except (OSError, ValueError):
            return None
        return next((name for name in sorted(names) if name.startswith(tail + ".") and name.endswith(_COMPILED)), None)

    def invalidate_caches(self):
        pass

    def iter_modules(self, prefix=""):
        """For ``pkgutil.iter_modules``: ``(name, is_package)`` of each module and package in the folder."""
        from os import listdir

        try:
            names = sorted(listdir(self.path or _getcwd()))
        except (OSError, ValueError):
            return
        seen = set()
        for name in names:
            path = _join(self.path or _getcwd(), name)
            if name.endswith(".py") and name != "__init__.py" and _kind(path) == _S_IFREG:
                module, is_package = name[:-3], False
            elif "." not in name and _kind(_join(path, "__init__.py")) == _S_IFREG:
                module, is_package = name, True
            else:
                continue
            if module.isidentifier() and module not in seen:
                seen.add(module)
                yield prefix + module, is_package

    def __repr__(self):
        return f"FolderFinder({self.path!r})"


def install():
    import _frozen_importlib
    import _frozen_importlib_external
    from importlib.machinery import PathFinder

    # The VM is built without its host-file importers, which is also where `_bootstrap_external` is told of
    # `_bootstrap`: without it `PathFinder.find_spec` and `spec_from_file_location` fail on a None.
    if _frozen_importlib_external._bootstrap is None:
        _frozen_importlib_external._set_bootstrap_module(_frozen_importlib)
        _frozen_importlib._bootstrap_external = _frozen_importlib_external
    sys.path_hooks[:] = [FolderFinder.path_hook]
    sys.path_importer_cache.clear()
    sys.meta_path.append(PathFinder)
