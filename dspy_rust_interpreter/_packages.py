"""The user's pure-Python packages in the sandbox: the ``packages`` option resolved, on the host, to the files the
sandbox is shown (docs/packages.md).

A name is an installed distribution of the host's environment (``"networkx"``, ``"python-dateutil"``), brought
with the distributions it requires (from its metadata; extras left out); a path is a folder of modules and
packages (a project, or a ``site-packages``-like folder). Each distribution's top-level modules and packages,
and its ``.dist-info`` (so ``importlib.metadata`` finds its version), are mounted read-only under
``/packages``, which is on the sandbox's ``sys.path``. The sandbox loads no native code: a package that needs a
compiled extension module fails to import it with an ``ImportError`` naming it, one that has a pure fallback
(PyYAML without libyaml) works. Only the host's caller chooses packages; the sandbox sees ``/packages``, never a
host path.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

__all__ = [
    "PACKAGES_ROOT",
    "PackageSet",
    "describe_packages",
    "guard_package_sources",
    "import_names",
    "package_mounts",
    "resolve_packages",
    "with_preload",
]

PACKAGES_ROOT = "/packages"
_EXTENSION = re.compile(r"\.(so|pyd|dylib)$|\.cpython-.*\.so$|\.abi3\.so$")
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class PackageSet:
    """What the sandbox is shown: (sandbox path, host path) pairs, each a top-level module, package or
    ``.dist-info`` folder, and the distributions they came from (for the error messages and docs)."""

    entries: tuple[tuple[str, str], ...]
    distributions: tuple[str, ...]
    extension_modules: tuple[str, ...]
    # The top-level modules (import name, host path) of the distributions with compiled code and of those they
    # require or that require them: the set's zygote imports these into its CPython, and the sandbox reaches them
    # through the bridge (src/sandbox/cpython/), not its own importer.
    cpython: tuple[tuple[str, str], ...] = ()
    # The user's `preload` modules that are in these packages (`sympy.physics.units`): the set's zygote imports
    # them too, so no session pays for them; a different list is a different set.
    preloaded: tuple[str, ...] = ()


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _required(distribution: metadata.Distribution) -> list[str]:
    """The names of the distributions ``distribution`` requires, extras and markers that do not hold left out."""
    found = []
    for requirement in distribution.requires or ():
        text, _, marker = requirement.partition(";")
        if marker.strip():
            if "extra" in marker:
                continue
            try:
                from packaging.markers import Marker

                if not Marker(marker).evaluate():
                    continue
            except Exception:  # noqa: BLE001 - no packaging, or a marker it cannot read: keep the requirement
                pass
        match = _REQUIREMENT_NAME.match(text)
        if match:
            found.append(match.group(1))
    return found


def _top_levels(distribution: metadata.Distribution) -> tuple[set[Path], list[str]]:
    """A distribution's top-level modules and packages and its ``.dist-info`` folder, as host paths, and its
    compiled extension modules (not shown)."""
    tops: set[Path] = set()
    extensions = []
    base = Path(distribution.locate_file("")).resolve()
    for file in distribution.files or ():
        parts = PurePosixPath(str(file)).parts
        if not parts or parts[0] in ("..", "/") or parts[0].endswith(".data") or "__pycache__" in parts:
            continue
        located = Path(distribution.locate_file(file))
        if _EXTENSION.search(parts[-1]):
            extensions.append(".".join(parts[:-1] + (parts[-1].split(".")[0],)))
            continue
        if len(parts) == 1 and not parts[0].endswith(".py"):
            continue
        top = _inside(located if len(parts) == 1 else Path(distribution.locate_file(parts[0])), base)
        if top is not None:
            tops.add(top)
    return tops, extensions


def _inside(path: Path, folder: Path) -> Path | None:
    """``path`` resolved, if it is still inside ``folder`` (resolved): a link that leads out of a package folder is
    not followed (it would show the sandbox a host file the caller never chose)."""
    resolved = path.resolve()
    return resolved if resolved.is_relative_to(folder.resolve()) and resolved.exists() else None


# The host paths a session may write (`rw` mounts) and the host paths a package set's zygote reads, over every
# configuration made in this process. A zygote is trusted: it imports its packages before it is confined, and
# every session it forks starts from what they did, so no folder is ever both (docs/security.md).
_sources_lock = threading.Lock()
_writable: set[Path] = set()
_package_sources: set[Path] = set()


def _overlapping(first: Path, second: Path) -> bool:
    return first.is_relative_to(second) or second.is_relative_to(first)


def guard_package_sources(packages: PackageSet | None, mounts) -> None:
    """Refuse a package folder that a writable mount overlaps, in this configuration or in any other made in this
    process (and keep both sides for the next): what a session writes must never be what a zygote imports."""
    writable = {Path(mount.host_path) for mount in mounts if mount.mode == "rw"}
    sources = {Path(host).resolve() for _path, host in packages.entries} if packages else set()
    with _sources_lock:
        for written in writable:
            for source in sources | _package_sources:
                if _overlapping(written, source):
                    raise ValueError(_overlap_message(source, written))
        for source in sources:
            for written in _writable:
                if _overlapping(written, source):
                    raise ValueError(_overlap_message(source, written))
        _writable.update(writable)
        _package_sources.update(sources)


def _overlap_message(source: Path, written: Path) -> str:
    return (
        f"packages: {source} overlaps the writable mount of {written} (of this interpreter or another in this "
        "process): packages are imported by a trusted process before any session runs, so a session may not "
        "write them; mount that folder read-only or as 'overlay', or give the packages from another folder"
    )


def import_names(packages: PackageSet) -> list[str]:
    """The top-level modules and packages of a set, then its preloaded modules: what its zygote imports before
    serving."""
    names = []
    served_by_cpython = {name for name, _host in packages.cpython}
    for path, _host in packages.entries:
        name = path.rsplit("/", 1)[1]
        if name in served_by_cpython:
            continue
        name = name[:-3] if name.endswith(".py") else name
        if name.isidentifier() and not name.startswith("_"):
            names.append(name)
    return names + list(packages.preloaded)


def with_preload(packages: PackageSet | None, preload: tuple[str, ...]) -> PackageSet | None:
    """``packages`` with those of the ``preload`` modules that are in them, for its zygote to import."""
    if packages is None:
        return None
    tops = set(import_names(dataclasses.replace(packages, preloaded=())))
    inside = tuple(name for name in preload if name.split(".")[0] in tops)
    return dataclasses.replace(packages, preloaded=inside) if inside else packages


def package_mounts(packages: PackageSet | None) -> list:
    """The read-only mounts that show ``packages`` to the sandbox."""
    from ._native import Mount

    return [Mount.of_package(path, host) for path, host in packages.entries] if packages else []


def describe_packages(packages: PackageSet | None) -> str:
    """What the model is told about the packages it may import."""
    if not packages:
        return ""
    names = ", ".join(packages.distributions)
    text = f"Third-party packages installed for you (import them as usual): {names}."
    if packages.cpython:
        compiled = ", ".join(sorted({name.removesuffix(".py") for name, _host in packages.cpython if not name.startswith("_")}))
        text += f" These run as the real compiled libraries, as in CPython: {compiled}."
    if packages.extension_modules:
        # Told up front, so the model does not plan around a module that cannot load (a package with a
        # pure-Python fallback, as PyYAML has, still works without it).
        compiled = ", ".join(packages.extension_modules)
        text += f" These compiled modules of theirs do not import here (the sandbox runs pure Python only): {compiled}."
    return text


@functools.lru_cache(maxsize=1)
def _providers() -> dict[str, list[str]]:
    """The installed distributions that provide each top-level module (`bs4` -> `beautifulsoup4`)."""
    return metadata.packages_distributions()


@functools.lru_cache(maxsize=512)
def _distribution(name: str) -> tuple[str, tuple[Path, ...], tuple[str, ...], tuple[str, ...]]:
    """An installed distribution's name and version, top-level paths, compiled modules and requirements, by its
    name or by the name a module of it is imported as (`bs4`, `yaml`, `dateutil`). Read once per process: a
    distribution's RECORD is long (sympy's: 40 ms to read), and every interpreter made with the option resolves
    it."""
    try:
        distribution = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        providers = _providers().get(name) or _providers().get(name.replace("-", "_")) or []
        if len(providers) != 1:
            raise ValueError(
                f"packages: no distribution named {name!r} is installed in the host's environment, nor one that "
                f"provides a module of that name (pip install {name}, or give a folder)"
            ) from None
        distribution = metadata.distribution(providers[0])
    tops, extensions = _top_levels(distribution)
    label = f"{distribution.metadata['Name']} {distribution.version}"
    return label, tuple(sorted(tops)), tuple(extensions), tuple(_required(distribution))


# This project's folder in the user's cache (the Makefile keeps its cargo target there too).
USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dspy-rust-interpreter"
WHEELS_CACHE = USER_CACHE / "wheels"


def _unpacked_wheel(wheel: Path) -> Path:
    """The folder a wheel unpacks to (its top-level modules and ``.dist-info``, as pip would install them),
    unpacked once per wheel content into the user's cache. A wheel brings itself only: its requirements are
    not resolved (name them, or give their wheels too)."""
    import hashlib
    import shutil
    import tempfile
    import zipfile

    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()[:20]
    target = WHEELS_CACHE / f"{wheel.stem}-{digest}"
    if target.is_dir():
        return target
    WHEELS_CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=WHEELS_CACHE))
    try:
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.infolist():
                parts = PurePosixPath(member.filename).parts
                if member.filename.startswith("/") or ".." in parts or not parts:
                    raise ValueError(f"packages: {wheel} holds a path outside itself ({member.filename!r})")
            archive.extractall(staging)
    except zipfile.BadZipFile as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise ValueError(f"packages: {wheel} is not a wheel ({error})") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        staging.rename(target)
    except OSError:  # another process unpacked it first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def resolve_packages(packages) -> PackageSet | None:
    """The ``packages`` option, checked and resolved; None when empty."""
    if packages is None or isinstance(packages, PackageSet):
        return packages
    if isinstance(packages, (str, os.PathLike)):
        raise TypeError("packages must be a list of distribution names or folders, not a single str")
    try:
        requested = list(packages or ())
    except TypeError:
        raise TypeError(f"packages must be a list of distribution names or folders, not {type(packages).__name__}") from None
    if not requested:
        return None
    entries: dict[str, str] = {}
    distributions: list[str] = []
    extensions: list[str] = []
    seen: set[str] = set()
    pending = []
    for item in requested:
        if isinstance(item, os.PathLike) or (isinstance(item, str) and ("/" in item or item.startswith("."))):
            folder = Path(item).expanduser().resolve()
            if folder.is_file() and folder.suffix == ".whl":
                folder = _unpacked_wheel(folder)
            elif not folder.is_dir():
                raise ValueError(f"packages: {item!s} is not a folder or a .whl file")
            for child in sorted(folder.iterdir()):
                if child.name.startswith(".") or child.name == "__pycache__" or _EXTENSION.search(child.name):
                    continue
                inside = _inside(child, folder)
                if inside is not None and (inside.is_dir() or inside.suffix == ".py"):
                    entries.setdefault(child.name, str(inside))
            distributions.append(str(folder))
        elif isinstance(item, str) and _REQUIREMENT_NAME.fullmatch(item.strip()):
            pending.append(item.strip())
        elif isinstance(item, str):
            raise ValueError(f"packages: {item!r} is neither an installed distribution's name nor a folder")
        else:
            raise TypeError(f"packages: each item is a distribution's name or a folder, not {type(item).__name__}")
    resolved: dict[str, tuple[tuple[Path, ...], tuple[str, ...], set[str]]] = {}
    while pending:
        name = pending.pop(0)
        if _normalized(name) in seen:
            continue
        seen.add(_normalized(name))
        label, tops, found_extensions, required = _distribution(_normalized(name))
        for top in tops:
            entries.setdefault(top.name, str(top.resolve()))
        resolved[_normalized(name)] = (tops, found_extensions, {_normalized(r) for r in required})
        distributions.append(label)
        pending.extend(required)
    bridged = _bridged(resolved)
    for name, (_tops, found_extensions, _required) in resolved.items():
        if name not in bridged:
            extensions.extend(found_extensions)
    cpython = sorted(
        (top.name, str(top.resolve()))
        for name in bridged
        for top in resolved[name][0]
        if top.name.removesuffix(".py").isidentifier()
    )
    return PackageSet(
        entries=tuple(sorted((f"{PACKAGES_ROOT}/{name}", host) for name, host in entries.items())),
        distributions=tuple(distributions),
        extension_modules=tuple(sorted(extensions)),
        cpython=tuple(cpython),
    )


def _bridged(resolved: dict[str, tuple[tuple[Path, ...], tuple[str, ...], set[str]]]) -> set[str]:
    """The distributions CPython imports: each with compiled code, what they require, and what requires any of
    them (a pure package over numpy, seaborn, must see numpy's own objects)."""
    bridged = {name for name, (_tops, extensions, _required) in resolved.items() if extensions}
    changed = True
    while changed:
        changed = False
        for name, (_tops, _extensions, required) in resolved.items():
            required = required & resolved.keys()
            if name in bridged and not required <= bridged:
                bridged |= required
                changed = True
            elif name not in bridged and required & bridged:
                bridged.add(name)
                changed = True
    return bridged
