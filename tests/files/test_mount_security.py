"""Attacks on host folder mounts (``Mount(path, host_path, mode)``), each with the outcome a secure sandbox
must give.

The host side of every test builds a folder to mount next to an ``outside`` folder holding secrets, then sandbox
code tries to reach those secrets (or the host's own files) through the mount: ``..``, symlinks and hard links
planted by the host, special files that block, over-long or NUL-carrying paths, renames across mounts, writes
past the limits, and files the host swaps for a symlink between two ``execute()`` calls. Whatever the sandbox
code gets back (content, error message, listing) must never hold a secret, and the host folders outside the
mount must never change.

Sandbox code reports its own outcome (see ``probe_code``): ``("ok", None, False, result)``, or the exception's
class name, errno, whether it is an ``OSError``, and its message. A refusal must be an ``OSError`` other than
``TimeoutError`` (itself an ``OSError``: the time limit stopping a blocked call is a hang, not a refusal), and
it must come well within the interpreter's time limit. Attempts that may block a process (FIFOs, device nodes)
run in a child process (see isolated.py), so a host process that hangs is a failure rather than a stuck run.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import stat
import textwrap
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from isolated import run_child

from dspy_rust_interpreter import Mount, RustInterpreter

# Seconds each interpreter may run code; a refusal must come long before.
TIME_LIMIT = 10
REFUSAL_SECONDS = 5.0
REPO = Path(__file__).resolve().parents[2]

TOKEN = uuid.uuid4().hex
# What must never reach sandbox code. The secret file is 777 bytes, so a stat through a link cannot pass for
# another file's by chance.
SECRET_MARK = f"SECRET-{TOKEN}"
SECRET = SECRET_MARK.ljust(777, "#")
HARD_SECRET_MARK = f"HARDLINKED-{TOKEN}"
OUTSIDE_MARKER = f"outside-marker-{TOKEN}"
EVIL_MODULE = f"evilmod_{TOKEN[:8]}"
PASSWD_MARK = "root:x:0:0"
LEAKS = (SECRET_MARK, HARD_SECRET_MARK, OUTSIDE_MARKER, PASSWD_MARK)


# -- sandbox side ----------------------------------------------------------------------------------------------


class Outcome(NamedTuple):
    kind: str  # "ok", or the sandbox exception's class name
    errno: int | None
    is_oserror: bool
    value: Any  # what the code left in `result`, or the exception's message
    seconds: float


def probe_code(body: str, **variables: Any) -> str:
    """Sandbox code that runs ``body`` (after binding ``variables``) and evaluates to its outcome tuple."""
    lines = [f"{name} = {value!r}" for name, value in variables.items()]
    lines += textwrap.dedent(body).strip("\n").splitlines()
    return (
        "import os\n"
        "result = None\n"
        "try:\n" + textwrap.indent("\n".join(lines), "    ") + "\n    _outcome = ('ok', None, False, result)\n"
        "except Exception as _error:\n"
        "    _outcome = (type(_error).__name__, getattr(_error, 'errno', None), isinstance(_error, OSError),"
        " str(_error)[:300])\n"
        "_outcome"
    )


def attempt(interp: RustInterpreter, body: str, **variables: Any) -> Outcome:
    started = time.monotonic()
    kind, errno, is_oserror, value = interp.execute(probe_code(body, **variables))
    return Outcome(kind, errno, is_oserror, value, time.monotonic() - started)


def assert_no_leak(outcome: Any) -> None:
    shown = repr(outcome)
    for mark in LEAKS:
        assert mark not in shown, f"{mark!r} reached the sandbox: {shown[:500]}"


def assert_refused(outcome: Outcome, errno: int | None = None) -> None:
    """An OSError (not the time limit), quickly, with nothing secret in it; with ``errno`` if given."""
    assert_no_leak(outcome)
    assert outcome.kind != "ok", f"not refused: {outcome}"
    assert outcome.is_oserror and outcome.kind != "TimeoutError", outcome
    assert outcome.seconds < REFUSAL_SECONDS, outcome
    if errno is not None:
        assert outcome.errno == errno, outcome


# Reads every file and directory entry beneath /data that os.walk (following links or not) and glob find; a
# refused entry shows as its exception's name. Nothing it collects may hold a secret.
READ_EVERYTHING = """
import glob
seen = {}
def _read(path):
    try:
        with open(path, 'rb') as f:
            seen[path] = f.read(4096)
    except Exception as e:
        seen[path] = type(e).__name__
for follow in (False, True):
    for top, dirs, files in os.walk('/data', followlinks=follow):
        for name in files + dirs:
            _read(os.path.join(top, name))
for path in glob.glob('/data/**', recursive=True):
    _read(path)
result = sorted((k, repr(v)) for k, v in seen.items())
"""


# -- host side ---------------------------------------------------------------------------------------------------


@dataclass
class Tree:
    root: Path  # tmp_path: holds mnt/ and outside/
    mnt: Path  # the folder mounted at /data
    outside: Path
    secret: Path
    hard_target: Path


def build_tree(root: Path) -> Tree:
    """The folder to mount, full of ways out, next to the secrets.

    mnt/a.txt, mnt/sub/b.txt: legitimate files; mnt/empty/: an empty folder; symlinks out of the folder
    (absolute, relative, through a chain, to a directory, to /etc and /proc); a loop and a dangling link; a file
    hard-linked to a secret outside, and two files hard-linked to each other inside.
    """
    mnt, outside = root / "mnt", root / "outside"
    (mnt / "sub").mkdir(parents=True)
    (mnt / "empty").mkdir()
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text(SECRET)
    (outside / OUTSIDE_MARKER).write_text("marker")
    (outside / f"{EVIL_MODULE}.py").write_text(f"LEAK = {SECRET_MARK!r}\n")
    hard_target = outside / "hard_target.txt"
    hard_target.write_text(HARD_SECRET_MARK)
    (mnt / "a.txt").write_text("public-a")
    (mnt / "sub" / "b.txt").write_text("public-b")
    links = {
        "abs_link": secret,
        "rel_link": "../outside/secret.txt",
        "chain1": "chain2",
        "chain2": "../outside/secret.txt",
        "dir_link": outside,
        "rel_dir_link": "../outside",
        "etc_link": "/etc",
        "proc_link": "/proc/self/environ",
        "loop": "loop",
        "dangling": f"/nonexistent-{TOKEN}",
        "sub/upup": "../..",
    }
    for name, target in links.items():
        os.symlink(target, mnt / name)
    os.link(hard_target, mnt / "hard.txt")
    (mnt / "twin_1.txt").write_text("twin")
    os.link(mnt / "twin_1.txt", mnt / "twin_2.txt")
    return Tree(root, mnt, outside, secret, hard_target)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return build_tree(tmp_path)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry beneath ``root``, links not followed: kind, a link's target, a folder's and a file's mode and
    owner, and a file's bytes and mtime."""
    entries: dict[str, tuple] = {}
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(top, name)
            info = os.lstat(path)
            key = os.path.relpath(path, root)
            if stat.S_ISLNK(info.st_mode):
                entries[key] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                entries[key] = ("file", Path(path).read_bytes(), info.st_mtime_ns, info.st_mode, info.st_uid, info.st_gid)
            elif stat.S_ISDIR(info.st_mode):
                entries[key] = ("dir", info.st_mode, info.st_uid, info.st_gid)
            else:
                entries[key] = ("special", stat.S_IFMT(info.st_mode))
    return entries


def regular_files_holding(root: Path, mark: str, skip: tuple[str, ...] = ()) -> list[str]:
    """Regular files beneath ``root`` (links not followed) whose content holds ``mark``."""
    found = []
    for top, _dirs, files in os.walk(root):
        for name in files:
            path = Path(top, name)
            if name in skip or not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            if mark.encode() in path.read_bytes():
                found.append(str(path))
    return found


@pytest.fixture
def mounted(make_interp) -> Callable[..., RustInterpreter]:
    """An interpreter with the given mounts and the time limit these tests count on."""

    def make(*mounts: Mount, **options: Any) -> RustInterpreter:
        options.setdefault("timeout", TIME_LIMIT)
        return make_interp(mounts=list(mounts), **options)

    return make


def make_socket(path: Path) -> None:
    """A Unix socket file at ``path`` (bound through a short relative path: a socket's is limited to 108 bytes)."""
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path.name)
        listener.close()
    finally:
        os.chdir(cwd)


MODES = ["ro", "rw", "overlay"]


# -- construction ------------------------------------------------------------------------------------------------


BAD_SANDBOX_PATHS = {
    "relative": "data",
    "relative_nested": "data/x",
    "empty": "",
    "root": "/",
    "trailing_slash": "/data/",
    "dotdot_inside": "/data/../etc",
    "dotdot_at_end": "/data/..",
    "dotdot_only": "/..",
    "dot_inside": "/data/./x",
    "dot_at_end": "/data/.",
    "dot_only": "/.",
    "double_slash_start": "//data",
    "double_slash_inside": "/data//x",
}


@pytest.mark.parametrize("path", BAD_SANDBOX_PATHS.values(), ids=BAD_SANDBOX_PATHS.keys())
def test_a_sandbox_path_that_is_not_absolute_and_normalised_is_refused(mounted, tmp_path, path):
    with pytest.raises(ValueError):
        mounted(Mount(path, tmp_path, "ro"))


OVERLAPPING = {
    "same_path": ("/data", "/data"),
    "second_inside_first": ("/data", "/data/sub"),
    "first_inside_second": ("/data/sub", "/data"),
    "deeply_inside": ("/a/b", "/a/b/c/d"),
}


@pytest.mark.parametrize("first, second", OVERLAPPING.values(), ids=OVERLAPPING.keys())
def test_mounts_at_the_same_path_or_one_inside_another_are_refused(mounted, tmp_path, first, second):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with pytest.raises(ValueError):
        mounted(Mount(first, tmp_path / "one"), Mount(second, tmp_path / "two"))


NOT_OVERLAPPING = {
    "shared_string_prefix": ("/data", "/database"),
    "siblings_under_a_folder": ("/data/a", "/data/b"),
    "siblings_deeper": ("/a/b", "/a/c"),
}


@pytest.mark.parametrize("first, second", NOT_OVERLAPPING.values(), ids=NOT_OVERLAPPING.keys())
def test_mounts_that_only_share_a_prefix_are_accepted(mounted, tmp_path, first, second):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "one" / "x.txt").write_text("one")
    (tmp_path / "two" / "x.txt").write_text("two")
    interp = mounted(Mount(first, tmp_path / "one"), Mount(second, tmp_path / "two"))
    assert interp.execute(f"open({first + '/x.txt'!r}).read(), open({second + '/x.txt'!r}).read()") == (
        "one",
        "two",
    )


@pytest.mark.parametrize("mode", ["RO", "readonly", "w", "", "rwx", " ro", "ro ", "overlay,rw"])
def test_an_unknown_mode_is_refused(mounted, tmp_path, mode):
    with pytest.raises(ValueError):
        mounted(Mount("/data", tmp_path, mode))


def test_a_missing_host_path_or_a_dangling_symlink_is_refused_with_file_not_found(mounted, tmp_path):
    with pytest.raises(FileNotFoundError):
        mounted(Mount("/data", tmp_path / "missing"))
    os.symlink(tmp_path / "missing", tmp_path / "dangling")
    with pytest.raises(FileNotFoundError):
        mounted(Mount("/data", tmp_path / "dangling"))


def test_a_host_path_that_is_neither_file_nor_folder_is_refused(mounted, tmp_path):
    make_socket(tmp_path / "sock")
    with pytest.raises(ValueError):
        mounted(Mount("/data", tmp_path / "sock"))
    with pytest.raises(ValueError):
        mounted(Mount("/data", os.devnull))


def test_a_fifo_as_host_path_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    results = run_child(
        f"""
        from dspy_rust_interpreter import Mount
        started = time.perf_counter()
        try:
            RustInterpreter(mounts=[Mount("/data", {str(fifo)!r})]).shutdown()
            results["raised"] = None
        except Exception as error:
            results["raised"] = type(error).__name__
        results["seconds"] = time.perf_counter() - started
        """,
        timeout=60,
    )
    assert results["raised"] == "ValueError"
    assert results["seconds"] < REFUSAL_SECONDS


# -- leaving the mount by path -----------------------------------------------------------------------------------

# Paths that lead to host files by their host name or by `..`: the sandbox looks every one up in its own tree,
# where there is no such file.
NOT_FOUND: dict[str, Callable[[Tree], str]] = {
    "etc_passwd": lambda t: "/etc/passwd",
    "etc_hostname": lambda t: "/etc/hostname",
    "proc_self_environ": lambda t: "/proc/self/environ",
    "proc_self_status": lambda t: "/proc/self/status",
    "proc_self_fd_0": lambda t: "/proc/self/fd/0",
    "proc_self_mem": lambda t: "/proc/self/mem",
    "proc_1_cmdline": lambda t: "/proc/1/cmdline",
    "dev_zero": lambda t: "/dev/zero",
    "dev_urandom": lambda t: "/dev/urandom",
    "dev_stdin": lambda t: "/dev/stdin",
    "this_test_file": lambda t: __file__,
    "repo_pyproject": lambda t: str(REPO / "pyproject.toml"),
    "mounted_file_by_its_host_path": lambda t: str(t.mnt / "a.txt"),
    "secret_by_its_host_path": lambda t: str(t.secret),
    "dotdot_from_mount": lambda t: "/data/../outside/secret.txt",
    "dotdot_from_subfolder": lambda t: "/data/sub/../../outside/secret.txt",
    "many_dotdots": lambda t: "/data/" + "../" * 40 + "etc/passwd",
    "dotdot_to_host_path": lambda t: "/data/../.." + str(t.secret),
    "relative_dotdot": lambda t: "data/../../etc/passwd",
    "relative_host_path": lambda t: os.path.relpath(t.secret, "/"),
    "mount_name_in_upper_case": lambda t: "/DATA/a.txt",
}

OS_OPEN_READ = "fd = os.open(p, os.O_RDONLY)\ntry:\n    result = os.read(fd, 4096)\nfinally:\n    os.close(fd)"
OPENERS = {
    "open": "with open(p, 'rb') as f:\n    result = f.read()",
    "os_open": OS_OPEN_READ,
    "stat": "result = os.stat(p).st_size",
    "pathlib": "import pathlib\nresult = pathlib.Path(p).read_bytes()",
}


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
@pytest.mark.parametrize("where", NOT_FOUND.values(), ids=NOT_FOUND.keys())
def test_host_files_are_not_found(mounted, tree, where, opener):
    interp = mounted(Mount("/data", tree.mnt, "rw"))
    outcome = attempt(interp, opener, p=where(tree))
    assert_refused(outcome)
    assert outcome.kind == "FileNotFoundError", outcome


@pytest.mark.parametrize(
    "where",
    [
        pytest.param(lambda t: "/etc", id="etc"),
        pytest.param(lambda t: "/proc/self/fd", id="proc_self_fd"),
        pytest.param(lambda t: "/proc", id="proc"),
        pytest.param(lambda t: "/dev/shm", id="dev_shm"),  # /dev holds only the sandbox's own null device
        pytest.param(lambda t: str(t.root), id="host_folder_of_the_mount"),
        pytest.param(lambda t: str(t.outside), id="outside_by_its_host_path"),
        pytest.param(lambda t: "/data/../outside", id="outside_by_dotdot"),
    ],
)
def test_host_folders_cannot_be_listed(mounted, tree, where):
    interp = mounted(Mount("/data", tree.mnt, "ro"))
    outcome = attempt(interp, "result = os.listdir(p)", p=where(tree))
    assert_refused(outcome)
    assert outcome.kind == "FileNotFoundError", outcome


@pytest.mark.parametrize("path", ["/data/..", "/data/../..", "/data/sub/../../..", "data/../../.."])
def test_dotdot_above_the_mount_is_the_sandbox_root_not_the_host_folder(mounted, tree, path):
    interp = mounted(Mount("/data", tree.mnt, "ro"))
    outcome = attempt(interp, "result = sorted(os.listdir(p))", p=path)
    assert outcome.kind == "ok", outcome
    assert "data" in outcome.value
    assert not {"mnt", "outside"} & set(outcome.value)
    assert_no_leak(outcome)


OTHER_OPENERS = {
    "io_FileIO": "import io\nresult = io.FileIO(p).read()",
    "_io_FileIO": "import _io\nresult = _io.FileIO(p).read()",
    "io_open_code": "import io\nresult = io.open_code(p).read()",
    "codecs_open": "import codecs, warnings\nwarnings.simplefilter('ignore')\nresult = codecs.open(p).read()",
    "tokenize_open": "import tokenize\nresult = tokenize.open(p).read()",
    "linecache": "import linecache\nresult = linecache.getlines(p)",
    "source_loader": "import importlib.machinery\nresult = importlib.machinery.SourceFileLoader('x', p).get_data(p)",
}


@pytest.mark.parametrize("opener", OTHER_OPENERS.values(), ids=OTHER_OPENERS.keys())
@pytest.mark.parametrize(
    "where",
    [
        pytest.param(lambda t: "/etc/passwd", id="etc_passwd"),
        pytest.param(lambda t: str(t.secret), id="secret_by_host_path"),
        pytest.param(lambda t: "/data/abs_link", id="symlink_out"),
        pytest.param(lambda t: "/data/dir_link/secret.txt", id="through_dir_link"),
        pytest.param(lambda t: "/data/hard.txt", id="hard_link"),
    ],
)
def test_other_ways_to_open_a_file_read_nothing_from_the_host(mounted, tree, where, opener):
    interp = mounted(Mount("/data", tree.mnt, "ro"))
    outcome = attempt(interp, opener, p=where(tree))
    assert_no_leak(outcome)
    assert outcome.kind != "ok" or not outcome.value, outcome


def test_modules_cannot_be_imported_through_a_symlinked_folder(mounted, tree):
    interp = mounted(Mount("/data", tree.mnt, "ro"))
    for folder in ("/data/dir_link", "/data/rel_dir_link", "/data/sub/upup/outside"):
        body = f"import sys\nsys.path.insert(0, p)\nimport {EVIL_MODULE}\nresult = {EVIL_MODULE}.LEAK"
        outcome = attempt(interp, body, p=folder)
        assert_no_leak(outcome)
        assert outcome.kind != "ok", outcome


def test_integer_file_descriptors_open_nothing(mounted, tree):
    """open(fd) must not reach descriptors the session process holds (its channel, files the mount opened)."""
    interp = mounted(Mount("/data", tree.mnt, "rw"))
    outcome = attempt(
        interp,
        """
        held = open('/data/a.txt', 'rb')
        own = set()
        try:
            own.add(held.fileno())
        except Exception:
            pass
        opened = []
        for fd in range(256):
            if fd in own:
                continue
            try:
                opened.append((fd, open(fd, 'rb', closefd=False).read(64)))
            except Exception:
                pass
        result = opened
        """,
    )
    assert_no_leak(outcome)
    assert (outcome.kind, outcome.value) == ("ok", []), outcome


# -- symlinks and hard links planted by the host -----------------------------------------------------------------

LINKED_PATHS = [
    "abs_link",
    "rel_link",
    "chain1",
    "chain2",
    "dir_link/secret.txt",
    "rel_dir_link/secret.txt",
    "sub/upup/outside/secret.txt",
    "sub/../abs_link",
    "etc_link/passwd",
    "etc_link/hostname",
    "proc_link",
    "loop",
    "dangling",
    "hard.txt",
    "twin_1.txt",
]

READERS = {
    "open_text": "with open(p) as f:\n    result = f.read()",
    "open_binary": "with open(p, 'rb') as f:\n    result = f.read()",
    "pathlib": "import pathlib\nresult = pathlib.Path(p).read_bytes()",
    "os_open": OS_OPEN_READ,
}


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
@pytest.mark.parametrize("name", LINKED_PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_symlinks_out_and_hard_links_are_refused(mounted, tree, mode, name, reader):
    interp = mounted(Mount("/data", tree.mnt, mode))
    assert_refused(attempt(interp, reader, p="/data/" + name))


@pytest.mark.parametrize("name", ["abs_link", "rel_link", "chain1", "proc_link", "loop", "dangling"])
@pytest.mark.parametrize("mode", MODES)
def test_a_symlink_out_does_not_look_like_a_readable_file(mounted, tree, mode, name):
    interp = mounted(Mount("/data", tree.mnt, mode))
    assert interp.execute(f"import os\nos.path.isfile({'/data/' + name!r})") is False
    outcome = attempt(interp, "result = os.stat(p).st_size", p="/data/" + name)
    assert_no_leak(outcome)
    assert outcome.is_oserror or outcome.value != len(SECRET), outcome


@pytest.mark.parametrize("name", ["dir_link", "rel_dir_link", "etc_link", "sub/upup"])
@pytest.mark.parametrize("mode", MODES)
def test_a_symlinked_folder_cannot_be_listed_or_walked(mounted, tree, mode, name):
    interp = mounted(Mount("/data", tree.mnt, mode))
    assert_refused(attempt(interp, "result = os.listdir(p)", p="/data/" + name))
    outcome = attempt(interp, "result = [(top, dirs, files) for top, dirs, files in os.walk(p)]", p="/data/" + name)
    assert_no_leak(outcome)
    assert outcome.kind != "ok" or outcome.value == [], outcome
    assert interp.execute(f"import os\nos.path.isdir({'/data/' + name!r})") is False


@pytest.mark.parametrize("name", ["abs_link", "rel_link", "dir_link", "rel_dir_link", "sub/upup"])
@pytest.mark.parametrize("mode", MODES)
def test_a_symlink_does_not_tell_where_it_points(mounted, tree, mode, name):
    target = os.readlink(tree.mnt / name)
    interp = mounted(Mount("/data", tree.mnt, mode))
    for body in ("result = os.readlink(p)", "result = tuple(os.lstat(p))"):
        outcome = attempt(interp, body, p="/data/" + name)
        assert_refused(outcome)
        assert target not in str(outcome.value), outcome


CHDIR_ATTEMPTS = {
    "dotdot_after_chdir": ("os.chdir('/data/sub')\nresult = open('../../outside/secret.txt').read()", "FileNotFoundError"),
    "dotdot_to_the_host_tree": ("os.chdir('/data')\nresult = os.listdir('..')", None),
    "chdir_into_symlinked_folder": ("os.chdir('/data/dir_link')\nresult = os.listdir('.')", "refused"),
    "chdir_via_upup": ("os.chdir('/data/sub/upup')\nresult = os.listdir('.')", "refused"),
    "chdir_to_host_folder": ("os.chdir('/etc')\nresult = os.listdir('.')", "FileNotFoundError"),
}


@pytest.mark.parametrize("body, expected", CHDIR_ATTEMPTS.values(), ids=CHDIR_ATTEMPTS.keys())
def test_the_working_directory_cannot_lead_out_of_the_mount(mounted, tree, body, expected):
    interp = mounted(Mount("/data", tree.mnt, "rw"))
    outcome = attempt(interp, body)
    assert_no_leak(outcome)
    if expected is None:  # the session's own root
        assert outcome.kind == "ok" and "data" in outcome.value and "outside" not in outcome.value, outcome
    elif expected == "refused":
        assert_refused(outcome)
    else:
        assert outcome.kind == expected, outcome


@pytest.mark.parametrize("mode", MODES)
def test_walking_and_globbing_the_whole_mount_reads_only_its_own_files(mounted, tree, mode):
    interp = mounted(Mount("/data", tree.mnt, mode))
    outcome = attempt(interp, READ_EVERYTHING)
    assert outcome.kind == "ok", outcome
    assert_no_leak(outcome)
    read = dict(outcome.value)
    assert read["/data/a.txt"] == repr(b"public-a")
    assert read["/data/sub/b.txt"] == repr(b"public-b")
    assert outcome.seconds < REFUSAL_SECONDS


# Operations that would change the host outside the mount if a planted link were followed (or a hard link
# written through). In every mode the folders outside the mount must stay as they were.
WRITES_THROUGH_LINKS = {
    "write_symlink": "with open('/data/abs_link', 'w') as f:\n    f.write('pwned')",
    "append_relative_symlink": "with open('/data/rel_link', 'a') as f:\n    f.write('pwned')",
    "update_symlink_chain": "with open('/data/chain1', 'r+') as f:\n    f.write('pwned')",
    "create_in_symlinked_folder": "with open('/data/dir_link/planted.txt', 'w') as f:\n    f.write('pwned')",
    "create_via_upup": "with open('/data/sub/upup/planted.txt', 'w') as f:\n    f.write('pwned')",
    "mkdir_in_symlinked_folder": "os.mkdir('/data/dir_link/planted')",
    "makedirs_via_upup": "os.makedirs('/data/sub/upup/outside/planted/deeper')",
    "remove_through_symlinked_folder": "os.remove('/data/dir_link/secret.txt')",
    "remove_the_symlink": "os.remove('/data/abs_link')",
    "rename_out_of_symlinked_folder": "os.rename('/data/dir_link/secret.txt', '/data/stolen.txt')",
    "rename_into_symlinked_folder": "os.rename('/data/a.txt', '/data/dir_link/planted.txt')",
    "rename_over_the_symlink": "os.rename('/data/a.txt', '/data/abs_link')",
    "rmtree_folder_holding_upup": "import shutil\nshutil.rmtree('/data/sub')",
    "rmtree_symlinked_folder": "import shutil\nshutil.rmtree('/data/dir_link')",
    "copytree_symlinked_folder": "import shutil\nshutil.copytree('/data/dir_link', '/data/copied')",
    "copy_symlink": "import shutil\nshutil.copy('/data/abs_link', '/data/copied.txt')",
    "copy_hard_link": "import shutil\nshutil.copy('/data/hard.txt', '/data/copied.txt')",
    "write_hard_link": "with open('/data/hard.txt', 'w') as f:\n    f.write('pwned')",
    "truncate_hard_link": "with open('/data/hard.txt', 'r+') as f:\n    f.truncate(0)",
    "write_inner_hard_link": "with open('/data/twin_1.txt', 'w') as f:\n    f.write('pwned')",
    "os_open_write_symlink": "os.write(os.open('/data/abs_link', os.O_WRONLY | os.O_TRUNC), b'pwned')",
    "os_open_create_in_symlinked_folder": "os.write(os.open('/data/dir_link/planted.txt', os.O_WRONLY | os.O_CREAT), b'x')",
    "os_truncate_symlink": "os.truncate('/data/abs_link', 0)",
    "os_truncate_hard_link": "os.truncate('/data/hard.txt', 0)",
    "chmod_symlink": "os.chmod('/data/abs_link', 0o777)",
    "chmod_through_symlinked_folder": "os.chmod('/data/dir_link/secret.txt', 0o777)",
    "chmod_symlinked_folder": "os.chmod('/data/dir_link', 0o777)",
    "chmod_hard_link": "os.chmod('/data/hard.txt', 0o777)",
    "chown_symlink": "os.chown('/data/abs_link', 1234, 1234)",
    "utime_symlink": "os.utime('/data/abs_link', (0, 0))",
    "utime_hard_link": "os.utime('/data/hard.txt', (0, 0))",
}


@pytest.mark.parametrize("body", WRITES_THROUGH_LINKS.values(), ids=WRITES_THROUGH_LINKS.keys())
@pytest.mark.parametrize("mode", MODES)
def test_writes_never_go_through_links(mounted, tree, mode, body):
    outside_before, root_before = snapshot(tree.outside), sorted(os.listdir(tree.root))
    mounted_before = snapshot(tree.mnt)
    interp = mounted(Mount("/data", tree.mnt, mode))
    outcome = attempt(interp, body)
    assert_no_leak(outcome)
    assert outcome.seconds < REFUSAL_SECONDS
    assert snapshot(tree.outside) == outside_before
    assert sorted(os.listdir(tree.root)) == root_before
    assert regular_files_holding(tree.mnt, SECRET_MARK) == []
    assert regular_files_holding(tree.mnt, HARD_SECRET_MARK, skip=("hard.txt",)) == []
    assert (tree.mnt / "twin_1.txt").read_text() == "twin" == (tree.mnt / "twin_2.txt").read_text()
    if mode == "ro":
        assert outcome.is_oserror, outcome
    if mode != "rw":
        assert snapshot(tree.mnt) == mounted_before
    # Whatever the session now sees of /data holds no secret either.
    after = attempt(interp, READ_EVERYTHING)
    assert after.kind == "ok", after
    assert_no_leak(after)


# -- links made by sandbox code ----------------------------------------------------------------------------------

MAKE_LINKS_AND_NODES = {
    "symlink_to_etc": "os.symlink('/etc', '/data/etc2')",
    "symlink_to_host_secret": "os.symlink(secret, '/data/secret2')",
    "symlink_relative_out": "os.symlink('../outside/secret.txt', '/data/rel2')",
    "symlink_inside": "os.symlink('a.txt', '/data/inner2')",
    "pathlib_symlink_to": "import pathlib\npathlib.Path('/data/etc3').symlink_to('/etc')",
    "hard_link_inside": "os.link('/data/a.txt', '/data/a2.txt')",
    "hard_link_from_memory": (
        "os.makedirs('/scratch', exist_ok=True)\n"
        "with open('/scratch/m.txt', 'w') as f:\n    f.write('m')\n"
        "os.link('/scratch/m.txt', '/data/m2.txt')"
    ),
    "pathlib_hardlink_to": "import pathlib\npathlib.Path('/data/a3.txt').hardlink_to('/data/a.txt')",
    "mkfifo": "os.mkfifo('/data/made_fifo')",
    "mknod_fifo": "import stat\nos.mknod('/data/made_node', 0o600 | stat.S_IFIFO)",
    "mknod_char_device": "import stat\nos.mknod('/data/made_dev', 0o666 | stat.S_IFCHR, 259)",
}


@pytest.mark.parametrize("body", MAKE_LINKS_AND_NODES.values(), ids=MAKE_LINKS_AND_NODES.keys())
@pytest.mark.parametrize("mode", MODES)
def test_sandbox_code_cannot_create_links_or_special_files_on_the_host(mounted, tmp_path, mode, body):
    mnt, outside = tmp_path / "mnt", tmp_path / "outside"
    mnt.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (mnt / "a.txt").write_text("public-a")
    before = snapshot(mnt)
    interp = mounted(Mount("/data", mnt, mode))
    outcome = attempt(interp, body, secret=str(outside / "secret.txt"))
    assert_no_leak(outcome)
    if mode != "overlay":
        assert outcome.is_oserror, outcome  # PermissionError is an OSError too
    assert snapshot(mnt) == before
    assert os.stat(mnt / "a.txt").st_nlink == 1
    after = attempt(interp, READ_EVERYTHING)
    assert after.kind == "ok", after
    assert_no_leak(after)


# -- special files -----------------------------------------------------------------------------------------------

SPECIAL_READS = {
    "read_binary": "with open(p, 'rb') as f:\n    result = f.read(16)",
    "read_text": "with open(p) as f:\n    result = f.read()",
    "pathlib": "import pathlib\nresult = pathlib.Path(p).read_bytes()",
}
SPECIAL_WRITES = {
    "write": "with open(p, 'wb') as f:\n    f.write(b'x')",
    "append": "with open(p, 'ab') as f:\n    f.write(b'x')",
}

# Runs each (name, code) in one interpreter and records its outcome; a call that stays blocked past the time
# limit shows as a TimeoutError, one that kills the session as "dead", and a host that hangs fails run_child.
SPECIAL_CHILD = """
from dspy_rust_interpreter import Mount
interp = RustInterpreter(mounts=[Mount("/data", MNT, MODE)], timeout=TIME_LIMIT)
for name, code in CASES:
    started = time.perf_counter()
    try:
        kind, errno, is_oserror, value = interp.execute(code)
    except CodeExecutionError as error:
        kind, errno, is_oserror, value = "uncaught " + error.error_type, None, False, str(error)[:300]
    except CodeInterpreterError as error:
        kind, errno, is_oserror, value = "dead", None, False, str(error)[:300]
    results[name] = {"kind": kind, "is_oserror": is_oserror, "shown": repr((kind, errno, value)),
                     "seconds": time.perf_counter() - started}
interp.shutdown()
"""


def child_outcomes(mnt: Path, mode: str, cases: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    header = f"MNT = {str(mnt)!r}\nMODE = {mode!r}\nTIME_LIMIT = {TIME_LIMIT}\nCASES = json.loads({json.dumps(cases)!r})\n"
    return run_child(header + SPECIAL_CHILD, timeout=60 + 20 * len(cases))


def make_special_files(tree: Tree) -> list[str]:
    """FIFOs, a socket and (where the host allows mknod) device nodes in the mount; their names."""
    names = ["fifo", "sock", "fifo_link", "zero_link", "null_link"]
    os.mkfifo(tree.mnt / "fifo")
    os.mkfifo(tree.outside / "fifo")
    make_socket(tree.mnt / "sock")
    os.symlink(tree.outside / "fifo", tree.mnt / "fifo_link")
    os.symlink("/dev/zero", tree.mnt / "zero_link")
    os.symlink("/dev/null", tree.mnt / "null_link")
    for name, (major, minor) in {"dev_null": (1, 3), "dev_zero": (1, 5), "dev_random": (1, 8)}.items():
        try:
            os.mknod(tree.mnt / name, stat.S_IFCHR | 0o666, os.makedev(major, minor))
        except OSError:
            continue  # no CAP_MKNOD here: the FIFOs and the socket are still tried
        names.append(name)
    return names


@pytest.mark.parametrize("mode", MODES)
def test_fifos_sockets_and_devices_are_refused_without_hanging(tree, mode):
    names = make_special_files(tree)
    cases = []
    for name in names:
        bodies = dict(SPECIAL_READS, **SPECIAL_WRITES)
        for op, body in bodies.items():
            cases.append((f"{op}:{name}", probe_code(body, p="/data/" + name)))
    cases.append(("listdir", probe_code("result = sorted(os.listdir('/data'))")))
    cases.append(("read_everything", probe_code(READ_EVERYTHING)))
    results = child_outcomes(tree.mnt, mode, cases)
    assert sorted(results) == sorted(name for name, _code in cases)
    for case, outcome in results.items():
        assert_no_leak(outcome["shown"])
        assert outcome["seconds"] < REFUSAL_SECONDS, (case, outcome)
        op = case.split(":")[0]
        if case in ("listdir", "read_everything"):
            assert outcome["kind"] == "ok", (case, outcome)
        elif op in SPECIAL_WRITES and mode == "overlay":
            # A write may stay in the session instead (host unchanged, checked below); it must not block.
            assert outcome["kind"] == "ok" or outcome["is_oserror"], (case, outcome)
            assert outcome["kind"] != "TimeoutError", (case, outcome)
        else:
            assert outcome["is_oserror"] and outcome["kind"] != "TimeoutError", (case, outcome)
    assert "'a.txt'" in results["listdir"]["shown"]
    assert stat.S_ISFIFO(os.lstat(tree.mnt / "fifo").st_mode)
    assert stat.S_ISSOCK(os.lstat(tree.mnt / "sock").st_mode)
    assert (tree.outside / "secret.txt").read_text() == SECRET


# -- the host swaps files between two execute() calls ------------------------------------------------------------


def swap_file_for_symlink(t: Tree) -> None:
    os.remove(t.mnt / "a.txt")
    os.symlink(t.secret, t.mnt / "a.txt")


def swap_file_for_relative_symlink(t: Tree) -> None:
    os.remove(t.mnt / "a.txt")
    os.symlink("../outside/secret.txt", t.mnt / "a.txt")


def swap_file_for_hard_link(t: Tree) -> None:
    os.remove(t.mnt / "a.txt")
    os.link(t.secret, t.mnt / "a.txt")


def swap_folder_for_symlink(t: Tree) -> None:
    for child in (t.mnt / "sub").iterdir():
        child.unlink()
    (t.mnt / "sub").rmdir()
    os.symlink(t.outside, t.mnt / "sub")


def swap_mounted_folder_for_symlink(t: Tree) -> None:
    os.rename(t.mnt, t.root / "mnt_moved")
    os.symlink(t.outside, t.mnt)


# (swap, the sandbox path that now leads out, whether an rw write to it must be refused)
SWAPS = {
    "file_to_symlink": (swap_file_for_symlink, "/data/a.txt", True),
    "file_to_relative_symlink": (swap_file_for_relative_symlink, "/data/a.txt", True),
    "file_to_hard_link": (swap_file_for_hard_link, "/data/a.txt", True),
    "folder_to_symlink": (swap_folder_for_symlink, "/data/sub/secret.txt", True),
    # Holding the original folder, the session may create secret.txt there: that write is not an escape.
    "mounted_folder_to_symlink": (swap_mounted_folder_for_symlink, "/data/secret.txt", False),
}


def assert_refused_or_stale(outcome: Outcome, mode: str, stale: tuple[Any, ...]) -> None:
    """In rw mode the swapped path must be refused. ro and overlay mounts may also answer from what the session
    read before the swap (a legitimate file of the mount then); never from the new target."""
    if mode != "rw" and outcome.kind == "ok" and outcome.value in stale:
        return
    assert_refused(outcome)


@pytest.mark.parametrize("swap, path, rw_write_refused", SWAPS.values(), ids=SWAPS.keys())
@pytest.mark.parametrize("mode", MODES)
def test_a_file_the_host_swaps_for_a_link_between_calls_is_refused(mounted, tree, mode, swap, path, rw_write_refused):
    interp = mounted(Mount("/data", tree.mnt, mode))
    assert interp.execute("open('/data/a.txt').read(), open('/data/sub/b.txt').read()") == ("public-a", "public-b")
    swap(tree)
    secret_before = snapshot(tree.outside)
    read_bytes = attempt(interp, "with open(p, 'rb') as f:\n    result = f.read()", p=path)
    assert_refused_or_stale(read_bytes, mode, (b"public-a", b"public-b"))
    read_text = attempt(interp, "import pathlib\nresult = pathlib.Path(p).read_text()", p=path)
    assert_refused_or_stale(read_text, mode, ("public-a", "public-b"))
    written = attempt(interp, "with open(p, 'w') as f:\n    f.write('pwned')", p=path)
    assert_no_leak(written)
    if mode == "rw" and rw_write_refused:
        assert_refused(written)
    assert snapshot(tree.outside) == secret_before
    assert tree.secret.read_text() == SECRET


@pytest.mark.parametrize("mode", MODES)
def test_a_file_left_open_across_calls_does_not_follow_a_swap(mounted, tree, mode):
    interp = mounted(Mount("/data", tree.mnt, mode))
    assert interp.execute("held = open('/data/a.txt')\nheld.read(3)") == "pub"
    swap_file_for_symlink(tree)
    outcome = attempt(interp, "result = held.read()")
    assert_no_leak(outcome)
    assert (outcome.kind, outcome.value) == ("ok", "lic-a") or outcome.is_oserror, outcome


@pytest.mark.parametrize("swap, path, rw_write_refused", SWAPS.values(), ids=SWAPS.keys())
@pytest.mark.parametrize("mode", MODES)
def test_a_swap_in_the_middle_of_a_call_is_refused_at_the_next_access(mounted, tree, mode, swap, path, rw_write_refused):
    """A host tool swaps the file while the code runs: nothing the session looked up before may be reused."""
    interp = mounted(Mount("/data", tree.mnt, mode), tools={"swap": lambda: swap(tree)})
    outcome = attempt(
        interp,
        """
        first = (open('/data/a.txt').read(), open('/data/sub/b.txt').read(), os.path.isfile(p))
        swap()
        try:
            with open(p, 'rb') as f:
                after = f.read()
        except OSError as e:
            after = (type(e).__name__, e.errno)
        result = (first, after)
        """,
        p=path,
    )
    assert_no_leak(outcome)
    assert outcome.kind == "ok", outcome
    first, after = outcome.value
    assert first[:2] == ("public-a", "public-b")
    if mode == "rw" or after not in (b"public-a", b"public-b"):  # see assert_refused_or_stale
        assert isinstance(after, tuple) and after[0] not in ("TimeoutError", "ok"), outcome
    assert tree.secret.read_text() == SECRET


HANDLES_CHILD = """
import resource
from dspy_rust_interpreter import Mount
# A host that kept a descriptor per file the sessions hold open would run out of them here.
resource.setrlimit(resource.RLIMIT_NOFILE, (512, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
HOARD = (
    "handles = []\\n"
    "try:\\n"
    "    for _ in range(5000):\\n"
    "        handles.append(open('/data/a.txt'))\\n"
    "except OSError as e:\\n"
    "    stopped = (type(e).__name__, e.errno)\\n"
    "else:\\n"
    "    stopped = None\\n"
    "(len(handles), stopped)"
)
sessions = [RustInterpreter(mounts=[Mount("/data", MNT, MODE)], timeout=60) for _ in range(3)]
results["hoards"] = [outcome(interp, HOARD) for interp in sessions]
held = [open(os.devnull) for _ in range(100)]
results["host_opened"] = len(held)
fresh = RustInterpreter(mounts=[Mount("/data", MNT, MODE)])
results["fresh"] = outcome(fresh, "open('/data/a.txt').read()")
results["after"] = [outcome(interp, "len(handles), handles[0].read()") for interp in sessions]
for interp in sessions + [fresh]:
    interp.shutdown()
"""


@pytest.mark.parametrize("mode", MODES)
def test_files_held_open_by_sessions_do_not_use_up_the_hosts_descriptors(tmp_path, mode):
    (tmp_path / "a.txt").write_text("public-a")
    results = run_child(f"import os\nMNT = {str(tmp_path)!r}\nMODE = {mode!r}\n" + HANDLES_CHILD, timeout=300)
    for hoard in results["hoards"]:
        # Stopped by an OSError the code caught (a cap on open files), or not stopped at all.
        assert hoard["kind"] == "value", hoard
        count, stopped = ast.literal_eval(hoard["value"])
        assert count >= 1 and (stopped is None or stopped[0] != "TimeoutError"), hoard
    assert results["host_opened"] == 100
    assert results["fresh"]["value"] == "'public-a'"
    for after in results["after"]:
        assert after["kind"] == "value" and after["value"].endswith(", 'public-a')"), after


@pytest.mark.parametrize("mode", MODES)
def test_a_file_the_host_swaps_for_a_fifo_between_calls_is_refused_without_hanging(tree, mode):
    read_before = probe_code("with open('/data/a.txt') as f:\n    result = f.read()")
    read_after = probe_code("with open('/data/a.txt', 'rb') as f:\n    result = f.read()")
    host_file = str(tree.mnt / "a.txt")
    # The child is the host here: it swaps the file for a FIFO between the session's two calls.
    results = run_child(
        f"""
        import os
        from dspy_rust_interpreter import Mount
        interp = RustInterpreter(mounts=[Mount("/data", {str(tree.mnt)!r}, {mode!r})], timeout={TIME_LIMIT})
        results["before"] = interp.execute({read_before!r})
        os.remove({host_file!r})
        os.mkfifo({host_file!r})
        started = time.perf_counter()
        try:
            kind, errno, is_oserror, value = interp.execute({read_after!r})
        except CodeExecutionError as error:
            kind, errno, is_oserror, value = "uncaught " + error.error_type, None, False, str(error)[:300]
        results["after"] = [kind, errno, is_oserror, repr(value)]
        results["seconds"] = time.perf_counter() - started
        interp.shutdown()
        """,
        timeout=90,
    )
    assert results["before"] == ["ok", None, False, "public-a"]
    kind, _errno, is_oserror, value = results["after"]
    stale = mode != "rw" and kind == "ok" and value == repr(b"public-a")  # see assert_refused_or_stale
    assert stale or (is_oserror and kind != "TimeoutError"), results
    assert results["seconds"] < REFUSAL_SECONDS
    assert stat.S_ISFIFO(os.lstat(host_file).st_mode)


# -- names -------------------------------------------------------------------------------------------------------

TOO_LONG = {
    "component_256_bytes": "/data/" + "a" * 256,
    "component_256_bytes_of_two_byte_characters": "/data/" + "é" * 128,
    "component_256_bytes_in_memory": "/" + "a" * 256,
    "path_over_4096_bytes": "/data/" + "a/" * 2100 + "f",
    "path_over_4096_bytes_in_memory": "/" + "abcdefg/" * 520 + "f",
}
NAME_OPS = {
    "open_read": "with open(p, 'rb') as f:\n    result = f.read()",
    "open_write": "with open(p, 'w') as f:\n    f.write('x')",
    "stat": "result = os.stat(p).st_size",
    "listdir": "result = os.listdir(p)",
    "mkdir": "os.mkdir(p)",
}


@pytest.mark.parametrize("op", NAME_OPS.values(), ids=NAME_OPS.keys())
@pytest.mark.parametrize("path", TOO_LONG.values(), ids=TOO_LONG.keys())
def test_over_long_names_and_paths_raise_enametoolong(mounted, tree, path, op):
    before = snapshot(tree.root)
    interp = mounted(Mount("/data", tree.mnt, "rw"))
    assert_refused(attempt(interp, op, p=path), errno=36)
    assert snapshot(tree.root) == before


@pytest.mark.parametrize(
    "name", [pytest.param("a" * 255, id="255_ascii"), pytest.param("é" * 127 + "a", id="255_bytes_two_byte_characters")]
)
def test_a_255_byte_name_is_not_too_long(mounted, tree, name):
    interp = mounted(Mount("/data", tree.mnt, "rw"))
    assert attempt(interp, "with open(p) as f:\n    result = f.read()", p="/data/" + name).kind == "FileNotFoundError"
    outcome = attempt(interp, "with open(p, 'w') as f:\n    f.write('long')\nresult = open(p).read()", p="/data/" + name)
    assert outcome.kind == "ok" and outcome.value == "long", outcome
    assert (tree.mnt / name).read_text() == "long"


NUL_PATHS = {
    "after_existing_name": "/data/a.txt\x00",
    "truncation_trick": "/data/a.txt\x00.png",
    "alone": "/data/\x00",
    "in_folder_name": "/data/su\x00b/b.txt",
    "in_memory": "/scratch\x00/x",
}
NUL_OPS = {
    "open_read": "with open(p) as f:\n    result = f.read()",
    "open_write": "with open(p, 'w') as f:\n    f.write('pwned')",
    "open_append": "with open(p, 'a') as f:\n    f.write('pwned')",
    "stat": "result = os.stat(p).st_size",
    "listdir": "result = os.listdir(p)",
    "mkdir": "os.mkdir(p)",
    "remove": "os.remove(p)",
    "rename_from": "os.rename(p, '/data/renamed.txt')",
    "rename_to": "os.rename('/data/sub/b.txt', p)",
    "pathlib_read": "import pathlib\nresult = pathlib.Path(p).read_text()",
}


@pytest.mark.parametrize("op", NUL_OPS.values(), ids=NUL_OPS.keys())
@pytest.mark.parametrize("path", NUL_PATHS.values(), ids=NUL_PATHS.keys())
def test_a_nul_in_a_path_raises_value_error_and_touches_nothing(mounted, tree, path, op):
    before = snapshot(tree.root)
    interp = mounted(Mount("/data", tree.mnt, "rw"))
    outcome = attempt(interp, op, p=path)
    assert outcome.kind == "ValueError", outcome
    assert_no_leak(outcome)
    assert snapshot(tree.root) == before


# -- read-only mounts --------------------------------------------------------------------------------------------

RO_WRITES = {
    "open_w": "open('/data/a.txt', 'w')",
    "open_wb": "open('/data/a.txt', 'wb')",
    "open_a": "open('/data/a.txt', 'a')",
    "open_r_plus": "open('/data/a.txt', 'r+')",
    "open_x_new": "open('/data/new.txt', 'x')",
    "open_w_new": "open('/data/new.txt', 'w')",
    "open_w_new_in_subfolder": "open('/data/sub/new.txt', 'w')",
    "remove": "os.remove('/data/a.txt')",
    "unlink": "os.unlink('/data/sub/b.txt')",
    "rename_inside": "os.rename('/data/a.txt', '/data/c.txt')",
    "replace_inside": "os.replace('/data/a.txt', '/data/sub/b.txt')",
    "mkdir": "os.mkdir('/data/newdir')",
    "makedirs": "os.makedirs('/data/sub/x/y')",
    "rmdir_empty_folder": "os.rmdir('/data/empty')",
    "rmtree": "import shutil\nshutil.rmtree('/data/sub')",
    "pathlib_write_text": "import pathlib\npathlib.Path('/data/a.txt').write_text('x')",
    "pathlib_write_bytes_new": "import pathlib\npathlib.Path('/data/n.bin').write_bytes(b'x')",
    "pathlib_touch": "import pathlib\npathlib.Path('/data/t.txt').touch()",
    "pathlib_unlink": "import pathlib\npathlib.Path('/data/a.txt').unlink()",
    "pathlib_mkdir": "import pathlib\npathlib.Path('/data/p').mkdir()",
    "pathlib_rename": "import pathlib\npathlib.Path('/data/a.txt').rename('/data/d.txt')",
    "shutil_copy_into": (
        "import shutil\nos.makedirs('/scratch', exist_ok=True)\n"
        "with open('/scratch/m.txt', 'w') as f:\n    f.write('m')\n"
        "shutil.copy('/scratch/m.txt', '/data/m.txt')"
    ),
    "shutil_copytree_into": (
        "import shutil\nos.makedirs('/scratch/t', exist_ok=True)\n"
        "with open('/scratch/t/m.txt', 'w') as f:\n    f.write('m')\n"
        "shutil.copytree('/scratch/t', '/data/t')"
    ),
}


@pytest.mark.parametrize("body", RO_WRITES.values(), ids=RO_WRITES.keys())
def test_every_change_to_a_read_only_mount_raises_erofs(mounted, tree, body):
    before = snapshot(tree.root)
    interp = mounted(Mount("/data", tree.mnt, "ro"))
    assert_refused(attempt(interp, body), errno=30)
    assert snapshot(tree.root) == before
    assert interp.execute("open('/data/a.txt').read()") == "public-a"


@pytest.mark.parametrize(
    "body",
    [
        "open('/sandbox/data.csv', 'w')",
        "open('/sandbox/data.csv', 'a')",
        "open('/sandbox/data.csv', 'r+')",
        "import pathlib\npathlib.Path('/sandbox/data.csv').write_text('x')",
    ],
    ids=["open_w", "open_a", "open_r_plus", "pathlib_write_text"],
)
def test_a_read_only_single_file_mount_cannot_be_written(mounted, tmp_path, body):
    host_file = tmp_path / "data.csv"
    host_file.write_text("a,b\n1,2\n")
    before = snapshot(tmp_path)
    interp = mounted(Mount("/sandbox/data.csv", host_file, "ro"))
    assert_refused(attempt(interp, body), errno=30)
    assert snapshot(tmp_path) == before


MOUNT_POINT_CHANGES = {
    "rmdir": "os.rmdir('/data')",
    "rename": "os.rename('/data', '/moved')",
    "rmtree": "import shutil\nshutil.rmtree('/data')",
}


@pytest.mark.parametrize("body", MOUNT_POINT_CHANGES.values(), ids=MOUNT_POINT_CHANGES.keys())
@pytest.mark.parametrize("mode", MODES)
def test_the_mount_point_itself_cannot_be_removed_or_renamed(mounted, tmp_path, mode, body):
    mnt = tmp_path / "mnt"
    mnt.mkdir()  # empty, so removing the folder itself is the only thing asked
    interp = mounted(Mount("/data", mnt, mode))
    assert_refused(attempt(interp, body))
    assert mnt.is_dir()
    assert interp.execute("import os\n'data' in os.listdir('/'), 'moved' in os.listdir('/'), os.path.isdir('/data')") == (
        True,
        False,
        True,
    )


# -- renames across mounts ---------------------------------------------------------------------------------------

EXDEV_RENAMES = {
    "rw_to_memory": "os.rename('/data/a.txt', '/scratch/a.txt')",
    "rw_to_memory_root_by_dotdot": "os.rename('/data/a.txt', '/data/../escaped.txt')",
    "rw_to_other_rw": "os.rename('/data/a.txt', '/other/a.txt')",
    "rw_folder_to_other_rw": "os.rename('/data/sub', '/other/sub')",
    "rw_to_overlay": "os.rename('/data/a.txt', '/ov/a.txt')",
    "replace_rw_to_memory": "os.replace('/data/a.txt', '/scratch/a.txt')",
    "memory_to_rw": "os.rename('/scratch/m.txt', '/data/m.txt')",
    "pathlib_rename_rw_to_memory": "import pathlib\npathlib.Path('/data/a.txt').rename('/scratch/a.txt')",
}


@pytest.mark.parametrize("body", EXDEV_RENAMES.values(), ids=EXDEV_RENAMES.keys())
def test_renames_across_mounts_raise_exdev(mounted, tmp_path, body):
    mnt, other, ov = tmp_path / "mnt", tmp_path / "other", tmp_path / "ov"
    for folder in (mnt, other, ov):
        folder.mkdir()
    (mnt / "a.txt").write_text("public-a")
    (mnt / "sub").mkdir()
    (mnt / "sub" / "b.txt").write_text("public-b")
    before = snapshot(tmp_path)
    interp = mounted(Mount("/data", mnt, "rw"), Mount("/other", other, "rw"), Mount("/ov", ov, "overlay"))
    interp.execute("import os\nos.makedirs('/scratch', exist_ok=True)\nwith open('/scratch/m.txt', 'w') as f:\n    f.write('m')")
    assert_refused(attempt(interp, body), errno=18)
    assert snapshot(tmp_path) == before
    assert interp.execute("import os\nsorted(os.listdir('/scratch')), os.path.exists('/escaped.txt')") == (["m.txt"], False)


# -- limits ------------------------------------------------------------------------------------------------------

MAX_BYTES = 1000
OVERSIZED_WRITES = {
    "one_big_write": "with open(p, 'wb') as f:\n    f.write(b'x' * 2000)",
    "many_small_writes": "with open(p, 'wb') as f:\n    for _ in range(30):\n        f.write(b'x' * 100)",
    "text_mode": "with open(p, 'w') as f:\n    f.write('é' * 600)",
    "seek_past_the_end": "with open(p, 'wb') as f:\n    f.seek(10**6)\n    f.write(b'x')",
    "truncate_up": "with open(p, 'wb') as f:\n    f.truncate(10**9)",
    "append_past_the_limit": (
        "with open(p, 'wb') as f:\n    f.write(b'x' * 900)\nwith open(p, 'ab') as f:\n    f.write(b'y' * 200)"
    ),
    "pathlib_write_bytes": "import pathlib\npathlib.Path(p).write_bytes(b'x' * 5000)",
}
WHERE_TO_WRITE = {"memory": "/scratch/big.bin", "rw": "/data/big.bin", "overlay": "/ov/big.bin"}


@pytest.mark.parametrize("where", WHERE_TO_WRITE.values(), ids=WHERE_TO_WRITE.keys())
@pytest.mark.parametrize("body", OVERSIZED_WRITES.values(), ids=OVERSIZED_WRITES.keys())
def test_a_file_past_files_max_bytes_raises_enospc(mounted, tmp_path, body, where):
    mnt, ov = tmp_path / "mnt", tmp_path / "ov"
    mnt.mkdir()
    ov.mkdir()
    interp = mounted(Mount("/data", mnt, "rw"), Mount("/ov", ov, "overlay"), files_max_bytes=MAX_BYTES)
    interp.execute("import os\nos.makedirs('/scratch', exist_ok=True)")
    assert_refused(attempt(interp, body, p=where), errno=28)
    size = attempt(interp, "result = os.path.getsize(p)", p=where)
    assert size.kind == "FileNotFoundError" or (size.kind == "ok" and size.value <= MAX_BYTES), size
    host_file = mnt / "big.bin"
    assert not host_file.exists() or host_file.stat().st_size <= MAX_BYTES
    assert os.listdir(ov) == []


@pytest.mark.parametrize("where", WHERE_TO_WRITE.values(), ids=WHERE_TO_WRITE.keys())
def test_a_file_of_exactly_files_max_bytes_is_accepted(mounted, tmp_path, where):
    mnt, ov = tmp_path / "mnt", tmp_path / "ov"
    mnt.mkdir()
    ov.mkdir()
    interp = mounted(Mount("/data", mnt, "rw"), Mount("/ov", ov, "overlay"), files_max_bytes=MAX_BYTES)
    interp.execute("import os\nos.makedirs('/scratch', exist_ok=True)")
    body = f"with open(p, 'wb') as f:\n    f.write(b'x' * {MAX_BYTES})\nresult = os.path.getsize(p)"
    assert attempt(interp, body, p=where)[:4] == ("ok", None, False, MAX_BYTES)


def test_more_than_files_max_count_files_in_memory_raises_enospc(mounted):
    interp = mounted(files_max_count=5)
    outcome = attempt(
        interp,
        """
        for i in range(50):
            with open(f'/file{i}.txt', 'w') as f:
                f.write('x')
        """,
    )
    assert_refused(outcome, errno=28)
    made = interp.execute("import os\nsorted(n for n in os.listdir('/') if n.startswith('file'))")
    assert 1 <= len(made) <= 5, made


# -- sessions sharing a folder -----------------------------------------------------------------------------------


def test_overlay_writes_stay_in_their_session(mounted, tree):
    before = snapshot(tree.root)
    first = mounted(Mount("/data", tree.mnt, "overlay"))
    second = mounted(Mount("/data", tree.mnt, "overlay"))
    first.execute(
        "import os\n"
        "with open('/data/a.txt', 'w') as f:\n    f.write('changed by first')\n"
        "with open('/data/new.txt', 'w') as f:\n    f.write('new in first')\n"
        "os.remove('/data/sub/b.txt')\n"
        "os.mkdir('/data/made')"
    )
    view = (
        "import os\n(open('/data/a.txt').read(), [os.path.exists(p) for p in ('/data/new.txt', '/data/sub/b.txt', '/data/made')])"
    )
    assert first.execute(view) == ("changed by first", [True, False, True])
    assert second.execute(view) == ("public-a", [False, True, False])
    assert snapshot(tree.root) == before
    first.shutdown()
    third = mounted(Mount("/data", tree.mnt, "overlay"))
    assert third.execute(view) == ("public-a", [False, True, False])
    assert snapshot(tree.root) == before


def test_memory_files_stay_in_their_session(mounted, tmp_path):
    first, second = mounted(Mount("/data", tmp_path, "ro")), mounted(Mount("/data", tmp_path, "ro"))
    first.execute("with open('/note.txt', 'w') as f:\n    f.write('first only')")
    assert first.execute("open('/note.txt').read()") == "first only"
    assert attempt(second, "result = open('/note.txt').read()").kind == "FileNotFoundError"
    assert os.listdir(tmp_path) == []
