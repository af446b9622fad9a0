"""``RustInterpreter(**options)`` and ``InterpreterPool(**options)`` checked once, into a ``Configuration``.

The session's own options (limits, tools' guards, files, mounts: their defaults and checks) are the native
``Options`` (src/host/options.rs), which every session is opened with. Here are the rest, which say what to
mount and are turned into mounts before that: ``packages`` (docs/packages.md) and dspy ``PythonInterpreter``'s
file and Deno options."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from . import _native
from ._mounts import dspy_path_mounts
from ._packages import PackageSet, guard_package_sources, package_mounts, resolve_packages, with_preload
from ._zygote import prepare_zygote

__all__ = ["Configuration", "check_options"]

logger = logging.getLogger("dspy_rust_interpreter")

# The options that become mounts, and their defaults.
MOUNTING_OPTIONS: dict[str, Any] = {
    # Pure-Python packages the sandbox may import: installed distributions' names (with what they require) or
    # folders of modules, shown read-only under /packages (docs/packages.md).
    "packages": (),
    # dspy PythonInterpreter's file options, with its meaning: each path appears as /sandbox/<name>; read paths
    # read-only, write paths made if missing and written back to the host (kept in the session with
    # sync_files=False).
    "enable_read_paths": (),
    "enable_write_paths": (),
    "sync_files": True,
    # dspy PythonInterpreter's other options. deno_command: Deno's command line, accepted and ignored (with a
    # warning) as there is no Deno. enable_env_vars / enable_network_access: the sandbox has neither, so
    # anything but None or empty is refused with what to do instead.
    "deno_command": None,
    "enable_env_vars": None,
    "enable_network_access": None,
}


@dataclass(frozen=True)
class Configuration:
    """What an interpreter was configured with, checked: the options of its sessions, and the packages they
    may import (its zygote's; None for none)."""

    options: _native.Options
    packages: PackageSet | None

    def package_mounts(self) -> list[_native.Mount]:
        return package_mounts(self.packages)


def check_options(options: dict[str, Any]) -> Configuration:
    native_names = _native.Options.names()
    unknown = sorted(set(options) - set(native_names) - set(MOUNTING_OPTIONS))
    if unknown:
        raise TypeError(
            f"RustInterpreter() got unexpected option(s) {', '.join(unknown)}; "
            f"the options are: {', '.join(sorted([*native_names, *MOUNTING_OPTIONS]))}"
        )
    mounting = {**MOUNTING_OPTIONS, **{name: options[name] for name in MOUNTING_OPTIONS if name in options}}
    if not isinstance(mounting["sync_files"], bool):
        raise TypeError(f"sync_files must be True or False, got {mounting['sync_files']!r}")
    _check_deno_options(mounting)
    native = _native.Options(**{name: value for name, value in options.items() if name in native_names})
    packages = with_preload(resolve_packages(mounting["packages"]), native.session.preload)
    # Last: dspy's write paths are made on the host here, once every other option is known to be good;
    # dspy_path_mounts checks that none of the mounts, the packages' included, overlap before it makes any.
    others = [*native.host.mounts, *package_mounts(packages)]
    paths = dspy_path_mounts(
        mounting["enable_read_paths"] or (), mounting["enable_write_paths"] or (), mounting["sync_files"], others
    )
    if paths:
        native = _native.Options(**{**native.as_dict(), "mounts": [*native.host.mounts, *paths]})
    guard_package_sources(packages, native.host.mounts)
    if packages is not None:
        # The set's zygote starts preparing now (importing its packages takes seconds), as the plain one starts
        # when the package is imported: the first `execute()` finds it ready.
        prepare_zygote(packages)
    return Configuration(native, packages)


def _check_deno_options(mounting: dict[str, Any]) -> None:
    """dspy PythonInterpreter's Deno options, checked as it checks them (a Configuration keeps none of them:
    a fork or pool made from it does not warn again)."""
    command = mounting["deno_command"]
    if command is not None:
        if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
            raise TypeError(f"deno_command must be a list of strings or None, got {command!r}")
        logger.warning(
            "RustInterpreter ignores deno_command=%r: code runs in RustPython in a process of its own, not in Deno",
            command,
        )
    env_vars = mounting["enable_env_vars"]
    if env_vars:
        raise ValueError(
            f"enable_env_vars={env_vars!r}: the sandbox sees none of the host's environment variables; pass the "
            "values the code needs as variables (execute(code, variables={...})) or through a tool"
        )
    network = mounting["enable_network_access"]
    if network:
        raise ValueError(
            f"enable_network_access={network!r}: the sandbox has no network; give the code a tool that fetches "
            "what it needs (RustInterpreter(tools={'fetch': fetch}))"
        )
