"""Time-zone data for ``zoneinfo`` (module ``_sandbox_tzdata``): the files of the ``tzdata`` package the host
has (a dependency of the wheel), read by the zygote before it is confined and kept in its memory (Rust's, not
Python objects: a session that never uses a zone pays nothing for them; holding them as 600 `bytes` objects in
the zygote's heap would add to the start of every new session), shared by every session. ``zoneinfo`` finds no
zone in its ``TZPATH`` (the sandbox's filesystem has none) and falls back
to the ``tzdata`` package through ``importlib.resources``, as CPython does where the system has no zone files;
the finder here makes that package: ``tzdata``, ``tzdata.zoneinfo`` and one package per zone folder, each with
a resource reader over the data."""

import io
import sys

# The native reader (`sandbox::zygote_data::tzdata`): `_read(key)` gives the bytes of "zoneinfo/America/New_York" or
# "zones" (None for no such file), `_list_keys()` every key. None when the host has no time-zone data.
_read = _list_keys = None
IANA_VERSION = None
_keys = None


def _all_keys():
    global _keys
    if _keys is None:
        _keys = frozenset(_list_keys())
    return _keys


class _Entry:
    """A file or folder of the data, as ``importlib.resources`` walks it (a ``Traversable``)."""

    def __init__(self, path):
        self._path = path

    @property
    def name(self):
        return self._path.rpartition("/")[2]

    def is_file(self):
        return self._path in _all_keys()

    def is_dir(self):
        prefix = self._path + "/" if self._path else ""
        return any(key.startswith(prefix) for key in _all_keys()) and not self.is_file()

    def iterdir(self):
        prefix = self._path + "/" if self._path else ""
        names = sorted({key[len(prefix):].partition("/")[0] for key in _all_keys() if key.startswith(prefix)})
        return iter([_Entry(prefix + name) for name in names])

    def joinpath(self, *parts):
        path = self._path
        for part in parts:
            path = f"{path}/{part}" if path else str(part)
        return _Entry(path)

    __truediv__ = joinpath

    def read_bytes(self):
        return self._data()

    def read_text(self, encoding=None, errors=None):
        return self._data().decode(encoding or "utf-8", errors or "strict")

    def open(self, mode="r", *args, **kwargs):
        if "b" in mode:
            return io.BytesIO(self._data())
        return io.TextIOWrapper(io.BytesIO(self._data()), *args, **kwargs)

    def _data(self):
        data = _read(self._path) if self.is_file() else None
        if data is None:
            if self.is_dir():
                raise IsADirectoryError(21, "Is a directory", self._path)
            raise FileNotFoundError(2, "No such file or directory", self._path)
        return data

    def __repr__(self):
        return f"<tzdata resource {self._path!r}>"


class _Reader:
    def __init__(self, folder):
        self._folder = folder

    def files(self):
        return _Entry(self._folder)

    # The older ResourceReader interface, which some callers still use.
    def open_resource(self, resource):
        return self.files().joinpath(resource).open("rb")

    def resource_path(self, resource):
        raise FileNotFoundError(resource)

    def is_resource(self, name):
        return self.files().joinpath(name).is_file()

    def contents(self):
        return [entry.name for entry in self.files().iterdir()]


class TzdataFinder:
    """Finds ``tzdata`` and its folders as packages (only when there is data)."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if _read is None or (name != "tzdata" and not name.startswith("tzdata.")):
            return None
        folder = _folder_of(name)
        if folder is None or (folder and not _Entry(folder).is_dir()):
            return None
        from importlib.machinery import ModuleSpec

        spec = ModuleSpec(name, cls, is_package=True)
        spec.submodule_search_locations = []
        return spec

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        if module.__name__ == "tzdata":
            module.IANA_VERSION = IANA_VERSION

    @staticmethod
    def get_resource_reader(name):
        folder = _folder_of(name)
        return None if folder is None else _Reader(folder)

    @staticmethod
    def invalidate_caches():
        pass


def _folder_of(name):
    """The data folder of package ``name``: "" for ``tzdata``, "America" for ``tzdata.zoneinfo.America``."""
    if name == "tzdata":
        return ""
    if name == "tzdata.zoneinfo":
        return "zoneinfo"
    if name.startswith("tzdata.zoneinfo."):
        return "zoneinfo/" + name[len("tzdata.zoneinfo."):].replace(".", "/")
    return None


def install(read, list_keys, version):
    global _read, _list_keys, IANA_VERSION
    _read, _list_keys, IANA_VERSION = read, list_keys, version
    sys.meta_path.append(TzdataFinder)
