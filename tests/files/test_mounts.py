"""Host folder mounts as sandbox code uses them: ``Mount(path, host_path, mode)`` objects, reading ro mounts
with every usual API, writing rw mounts straight to the host, overlay mounts that keep their changes in the
session, mount points in the sandbox's tree, and sessions sharing a folder. Attacks are in
test_mount_security.py."""

from __future__ import annotations

import csv
import hashlib
import os
import pickle
import random
from pathlib import Path

import pytest

from dspy_rust_interpreter import CodeInterpreterError, Mount

BIG_SIZE = 5 * 1024 * 1024


def build_corpus(root: Path) -> Path:
    """A folder of nested files: text, binary, a 5 MB file, CSV and JSON, an empty folder."""
    mnt = root / "corpus"
    (mnt / "sub" / "deep").mkdir(parents=True)
    (mnt / "empty").mkdir()
    (mnt / "readme.txt").write_text("héllo wörld ✓\nsecond line\nthird line\n", encoding="utf-8")
    (mnt / "bin.dat").write_bytes(bytes(range(256)) * 4)
    (mnt / "big.bin").write_bytes(random.Random(1234).randbytes(BIG_SIZE))
    (mnt / "sub" / "a.txt").write_text("alpha\n")
    (mnt / "sub" / "deep" / "b.txt").write_text("beta\n")
    (mnt / "sub" / "deep" / "table.csv").write_text("name,qty\napple,3\npear,5\n")
    (mnt / "sub" / "deep" / "data.json").write_text('{"k": [1, 2, 3]}')
    return mnt


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return build_corpus(tmp_path)


def host_tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) beneath ``root``, by path relative to it."""
    entries: dict[str, bytes | None] = {}
    for top, dirs, files in os.walk(root):
        for name in dirs:
            entries[os.path.relpath(os.path.join(top, name), root)] = None
        for name in files:
            path = os.path.join(top, name)
            entries[os.path.relpath(path, root)] = Path(path).read_bytes()
    return entries


# -- Mount objects -----------------------------------------------------------------------------------------------


def test_mount_attributes_and_default_mode(tmp_path):
    mount = Mount("/data", tmp_path)
    assert (mount.path, mount.host_path, mount.mode) == ("/data", str(tmp_path.resolve()), "ro")
    assert isinstance(mount.host_path, str)
    for mode in ("ro", "rw", "overlay"):
        assert Mount("/data", str(tmp_path), mode).mode == mode
        assert Mount("/data", tmp_path, mode=mode).mode == mode


def test_mounts_compare_by_value(tmp_path):
    (tmp_path / "other").mkdir()
    assert Mount("/data", tmp_path) == Mount("/data", str(tmp_path), "ro")
    assert Mount("/data", tmp_path, "rw") != Mount("/data", tmp_path, "ro")
    assert Mount("/data", tmp_path) != Mount("/data2", tmp_path)
    assert Mount("/data", tmp_path) != Mount("/data", tmp_path / "other")


@pytest.mark.parametrize("mode", ["ro", "rw", "overlay"])
def test_mounts_pickle_round_trip(tmp_path, mode):
    mount = Mount("/data/x", tmp_path, mode)
    copy = pickle.loads(pickle.dumps(mount))
    assert copy == mount
    assert (copy.path, copy.host_path, copy.mode) == (mount.path, mount.host_path, mount.mode)


@pytest.mark.parametrize("attribute, value", [("path", "/etc"), ("host_path", "/"), ("mode", "rw")])
def test_mounts_are_immutable(tmp_path, attribute, value):
    mount = Mount("/data", tmp_path)
    with pytest.raises((AttributeError, TypeError)):
        setattr(mount, attribute, value)
    assert (mount.path, mount.host_path, mount.mode) == ("/data", str(tmp_path.resolve()), "ro")


def test_host_path_is_resolved_to_an_absolute_path(tmp_path, monkeypatch):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    monkeypatch.chdir(tmp_path)
    real = str((tmp_path / "real").resolve())
    assert Mount("/data", "real").host_path == real
    assert Mount("/data", "./link/../real").host_path == real
    assert Mount("/data", tmp_path / "link").host_path == real
    assert Mount("/data", Path("link")).host_path == real


# -- reading -----------------------------------------------------------------------------------------------------

# (sandbox code, what it must give computed from the host folder)
READS = {
    "open_text": (
        "with open('/data/readme.txt', encoding='utf-8') as f:\n    text = f.read()\ntext",
        lambda m: (m / "readme.txt").read_text(encoding="utf-8"),
    ),
    "open_text_lines": (
        "with open('/data/readme.txt', encoding='utf-8') as f:\n    lines = [line for line in f]\nlines",
        lambda m: (m / "readme.txt").read_text(encoding="utf-8").splitlines(keepends=True),
    ),
    "open_binary": (
        "with open('/data/bin.dat', 'rb') as f:\n    data = f.read()\ndata",
        lambda m: (m / "bin.dat").read_bytes(),
    ),
    "seek_and_tell": (
        "with open('/data/bin.dat', 'rb') as f:\n    f.seek(300)\n    part = f.read(5)\n    where = f.tell()\n(part, where)",
        lambda m: ((m / "bin.dat").read_bytes()[300:305], 305),
    ),
    "pathlib_read_text": (
        "import pathlib\npathlib.Path('/data/sub/deep/b.txt').read_text()",
        lambda m: "beta\n",
    ),
    "pathlib_read_bytes": (
        "import pathlib\npathlib.Path('/data/readme.txt').read_bytes()",
        lambda m: (m / "readme.txt").read_bytes(),
    ),
    "json": (
        "import json\nwith open('/data/sub/deep/data.json') as f:\n    value = json.load(f)\nvalue",
        lambda m: {"k": [1, 2, 3]},
    ),
    "big_file_at_once": (
        "import hashlib\nwith open('/data/big.bin', 'rb') as f:\n    data = f.read()\n(len(data), hashlib.sha256(data).hexdigest())",
        lambda m: (BIG_SIZE, hashlib.sha256((m / "big.bin").read_bytes()).hexdigest()),
    ),
    "big_file_in_chunks": (
        "import hashlib\ndigest, size = hashlib.sha256(), 0\n"
        "with open('/data/big.bin', 'rb') as f:\n"
        "    while chunk := f.read(65536):\n        digest.update(chunk)\n        size += len(chunk)\n"
        "(size, digest.hexdigest())",
        lambda m: (BIG_SIZE, hashlib.sha256((m / "big.bin").read_bytes()).hexdigest()),
    ),
    "stat_sizes": (
        "import os\n[os.stat(p).st_size for p in ('/data/readme.txt', '/data/bin.dat', '/data/big.bin', '/data/sub/a.txt')]",
        lambda m: [os.stat(m / p).st_size for p in ("readme.txt", "bin.dat", "big.bin", "sub/a.txt")],
    ),
    "getsize": (
        "import os\nos.path.getsize('/data/sub/deep/table.csv')",
        lambda m: os.path.getsize(m / "sub" / "deep" / "table.csv"),
    ),
    "kinds": (
        "import os\n[(os.path.exists(p), os.path.isfile(p), os.path.isdir(p)) for p in "
        "('/data', '/data/sub', '/data/empty', '/data/readme.txt', '/data/missing')]",
        lambda m: [(True, False, True), (True, False, True), (True, False, True), (True, True, False), (False, False, False)],
    ),
}


@pytest.mark.parametrize("mode", ["ro", "rw", "overlay"])
@pytest.mark.parametrize("code, expected", READS.values(), ids=READS.keys())
def test_reading_a_mounted_folder(make_interp, corpus, code, expected, mode):
    interp = make_interp(mounts=[Mount("/data", corpus, mode)])
    assert interp.execute(code) == expected(corpus)


def listing(root: Path, sandbox_root: str) -> list[tuple[str, list[str], list[str]]]:
    """os.walk of ``root`` as the sandbox must see it beneath ``sandbox_root``, names sorted."""
    walked = []
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        walked.append((sandbox_root if rel == "." else f"{sandbox_root}/{rel}", sorted(dirs), sorted(files)))
    return sorted(walked)


LISTINGS = {
    "listdir": (
        "import os\nsorted(os.listdir('/data')), sorted(os.listdir('/data/sub')), os.listdir('/data/empty')",
        lambda m: (sorted(os.listdir(m)), sorted(os.listdir(m / "sub")), []),
    ),
    "walk": (
        "import os\nsorted((top, sorted(dirs), sorted(files)) for top, dirs, files in os.walk('/data'))",
        lambda m: listing(m, "/data"),
    ),
    "scandir": (
        "import os\nsorted((e.name, e.is_dir(), e.is_file()) for e in os.scandir('/data'))",
        lambda m: sorted((e.name, e.is_dir(), e.is_file()) for e in os.scandir(m)),
    ),
    "glob_recursive": (
        "import glob\nsorted(glob.glob('/data/**/*.txt', recursive=True))",
        lambda m: sorted("/data/" + str(p.relative_to(m)) for p in m.rglob("*.txt")),
    ),
    "glob_one_level": (
        "import glob\nsorted(glob.glob('/data/sub/*'))",
        lambda m: sorted("/data/sub/" + p.name for p in (m / "sub").iterdir()),
    ),
    "pathlib_iterdir": (
        "import pathlib\nsorted(p.name for p in pathlib.Path('/data/sub/deep').iterdir())",
        lambda m: sorted(os.listdir(m / "sub" / "deep")),
    ),
    "pathlib_rglob": (
        "import pathlib\nsorted(str(p) for p in pathlib.Path('/data').rglob('*.csv'))",
        lambda m: ["/data/sub/deep/table.csv"],
    ),
    "walk_sizes": (
        "import os\nsorted((os.path.join(t, f), os.stat(os.path.join(t, f)).st_size) for t, _, fs in os.walk('/data') for f in fs)",
        lambda m: sorted(
            ("/data/" + os.path.relpath(os.path.join(t, f), m), os.stat(os.path.join(t, f)).st_size)
            for t, _, fs in os.walk(m)
            for f in fs
        ),
    ),
}


@pytest.mark.parametrize("mode", ["ro", "rw", "overlay"])
@pytest.mark.parametrize("code, expected", LISTINGS.values(), ids=LISTINGS.keys())
def test_listing_a_mounted_folder(make_interp, corpus, code, expected, mode):
    interp = make_interp(mounts=[Mount("/data", corpus, mode)])
    assert interp.execute(code) == expected(corpus)


@pytest.mark.parametrize(
    "path",
    ["/data/sub/../readme.txt", "/data/./readme.txt", "/data//readme.txt", "/data/sub/deep/../../readme.txt", "data/readme.txt"],
)
def test_paths_are_normalised_inside_the_mount(make_interp, corpus, path):
    interp = make_interp(mounts=[Mount("/data", corpus, "ro")])
    assert interp.execute(f"open({path!r}, encoding='utf-8').read()") == (corpus / "readme.txt").read_text("utf-8")


def test_a_missing_file_raises_file_not_found_with_its_errno(make_interp, corpus):
    interp = make_interp(mounts=[Mount("/data", corpus, "ro")])
    code = "try:\n    open('/data/missing.txt')\nexcept OSError as e:\n    found = (type(e).__name__, e.errno)\nfound"
    assert interp.execute(code) == ("FileNotFoundError", 2)


def test_an_uncaught_error_reaches_the_host_with_the_sandbox_traceback(make_interp, corpus):
    interp = make_interp(mounts=[Mount("/data", corpus, "ro")])
    with pytest.raises(CodeInterpreterError) as raised:
        interp.execute("open('/data/missing.txt')")
    assert "FileNotFoundError" in str(raised.value)
    assert interp.execute("open('/data/sub/a.txt').read()") == "alpha\n"


@pytest.mark.parametrize("mode", ["ro", "rw", "overlay"])
def test_a_single_file_mount_reads_with_csv(make_interp, tmp_path, mode):
    host_file = tmp_path / "data.csv"
    host_file.write_text("city,population\nParis,2100000\nLyon,520000\n")
    interp = make_interp(mounts=[Mount("/sandbox/data.csv", host_file, mode)])
    code = "import csv\nwith open('/sandbox/data.csv', newline='') as f:\n    rows = list(csv.DictReader(f))\nrows"
    with host_file.open(newline="") as f:
        assert interp.execute(code) == list(csv.DictReader(f))
    assert interp.execute("import os\nos.listdir('/sandbox'), os.path.isfile('/sandbox/data.csv')") == (["data.csv"], True)
    assert interp.execute("import os\nos.stat('/sandbox/data.csv').st_size") == host_file.stat().st_size


def test_a_single_file_rw_mount_writes_the_host_file(make_interp, tmp_path):
    host_file = tmp_path / "notes.txt"
    host_file.write_text("a long first version\n")
    interp = make_interp(mounts=[Mount("/notes.txt", host_file, "rw")])
    interp.execute("with open('/notes.txt', 'w') as f:\n    f.write('short\\n')")
    assert host_file.read_text() == "short\n"
    interp.execute("with open('/notes.txt', 'a') as f:\n    f.write('more\\n')")
    assert host_file.read_text() == "short\nmore\n"


# -- the sandbox's tree ------------------------------------------------------------------------------------------


def test_mount_points_appear_in_their_parent_folders(make_interp, tmp_path):
    for name in ("one", "two", "three"):
        (tmp_path / name).mkdir()
    (tmp_path / "file.txt").write_text("f")
    interp = make_interp(
        mounts=[
            Mount("/data", tmp_path / "one", "ro"),
            Mount("/mnt/x/y", tmp_path / "two", "rw"),
            Mount("/mnt/x/z", tmp_path / "three", "overlay"),
            Mount("/mnt/file.txt", tmp_path / "file.txt", "ro"),
        ]
    )
    code = (
        "import os\n"
        "('data' in os.listdir('/'), 'mnt' in os.listdir('/'), sorted(os.listdir('/mnt')), sorted(os.listdir('/mnt/x')),"
        " os.path.isdir('/mnt'), os.path.isdir('/mnt/x'), os.path.isdir('/mnt/x/y'), os.path.isfile('/mnt/file.txt'))"
    )
    assert interp.execute(code) == (True, True, ["file.txt", "x"], ["y", "z"], True, True, True, True)


def test_state_persists_across_execute_calls(make_interp, tmp_path):
    ro_dir, rw_dir, ov_dir = tmp_path / "ro", tmp_path / "rw", tmp_path / "ov"
    for folder in (ro_dir, rw_dir, ov_dir):
        folder.mkdir()
    (ov_dir / "host.txt").write_text("host")
    interp = make_interp(mounts=[Mount("/ro", ro_dir, "ro"), Mount("/rw", rw_dir, "rw"), Mount("/ov", ov_dir, "overlay")])
    interp.execute(
        "import os\n"
        "os.makedirs('/scratch/deep')\n"
        "with open('/scratch/deep/m.txt', 'w') as f:\n    f.write('memory')\n"
        "with open('/rw/r.txt', 'w') as f:\n    f.write('rw')\n"
        "with open('/ov/o.txt', 'w') as f:\n    f.write('overlay')\n"
        "os.remove('/ov/host.txt')"
    )
    code = (
        "import os\n"
        "(open('/scratch/deep/m.txt').read(), open('/rw/r.txt').read(), open('/ov/o.txt').read(),"
        " os.path.exists('/ov/host.txt'), sorted(os.listdir('/ov')))"
    )
    assert interp.execute(code) == ("memory", "rw", "overlay", False, ["o.txt"])
    assert interp.execute(code) == ("memory", "rw", "overlay", False, ["o.txt"])
    assert (rw_dir / "r.txt").read_text() == "rw"
    assert sorted(os.listdir(ov_dir)) == ["host.txt"]


# -- rw mounts ---------------------------------------------------------------------------------------------------

# (sandbox code, the host folder's content afterwards: relative path -> bytes, or None for a folder)
RW_CHANGES = {
    "write_new_file": (
        "with open('/data/new.txt', 'w') as f:\n    f.write('new')",
        {"new.txt": b"new"},
    ),
    "write_binary": (
        "with open('/data/new.bin', 'wb') as f:\n    f.write(bytes(range(256)))",
        {"new.bin": bytes(range(256))},
    ),
    "append": (
        "with open('/data/a.txt', 'a') as f:\n    f.write('+more')",
        {"a.txt": b"original a+more"},
    ),
    "overwrite_with_shorter": (
        "with open('/data/a.txt', 'w') as f:\n    f.write('x')",
        {"a.txt": b"x"},
    ),
    "update_in_place": (
        "with open('/data/a.txt', 'r+') as f:\n    f.seek(9)\n    f.write('A')",
        {"a.txt": b"original A"},
    ),
    "pathlib_write_text": (
        "import pathlib\npathlib.Path('/data/sub/p.txt').write_text('héllo', encoding='utf-8')",
        {"sub/p.txt": "héllo".encode()},
    ),
    "mkdir": ("import os\nos.mkdir('/data/made')", {"made": None}),
    "makedirs_and_write": (
        "import os\nos.makedirs('/data/x/y/z')\nwith open('/data/x/y/z/f.txt', 'w') as f:\n    f.write('deep')",
        {"x": None, "x/y": None, "x/y/z": None, "x/y/z/f.txt": b"deep"},
    ),
    "rename_file": ("import os\nos.rename('/data/a.txt', '/data/renamed.txt')", {"a.txt": "gone", "renamed.txt": b"original a"}),
    "rename_into_subfolder": (
        "import os\nos.rename('/data/a.txt', '/data/sub/a.txt')",
        {"a.txt": "gone", "sub/a.txt": b"original a"},
    ),
    "rename_folder": (
        "import os\nos.rename('/data/sub', '/data/moved')",
        {"sub": "gone", "sub/b.txt": "gone", "moved": None, "moved/b.txt": b"original b"},
    ),
    "replace_existing": (
        "import os\nos.replace('/data/a.txt', '/data/sub/b.txt')",
        {"a.txt": "gone", "sub/b.txt": b"original a"},
    ),
    "remove": ("import os\nos.remove('/data/a.txt')", {"a.txt": "gone"}),
    "rmdir": ("import os\nos.rmdir('/data/empty')", {"empty": "gone"}),
    "rmtree": ("import shutil\nshutil.rmtree('/data/sub')", {"sub": "gone", "sub/b.txt": "gone"}),
    "copytree_from_memory": (
        "import os, shutil\nos.makedirs('/scratch/tree/inner')\n"
        "with open('/scratch/tree/one.txt', 'w') as f:\n    f.write('one')\n"
        "with open('/scratch/tree/inner/two.txt', 'w') as f:\n    f.write('two')\n"
        "shutil.copytree('/scratch/tree', '/data/copied')",
        {"copied": None, "copied/one.txt": b"one", "copied/inner": None, "copied/inner/two.txt": b"two"},
    ),
    "copytree_inside_the_mount": (
        "import shutil\nshutil.copytree('/data/sub', '/data/sub2')",
        {"sub2": None, "sub2/b.txt": b"original b"},
    ),
    "copy_file": (
        "import shutil\nshutil.copy('/data/a.txt', '/data/copy.txt')",
        {"copy.txt": b"original a"},
    ),
}


def build_rw_folder(root: Path) -> Path:
    mnt = root / "rw"
    (mnt / "sub").mkdir(parents=True)
    (mnt / "empty").mkdir()
    (mnt / "a.txt").write_text("original a")
    (mnt / "sub" / "b.txt").write_text("original b")
    return mnt


@pytest.mark.parametrize("code, changes", RW_CHANGES.values(), ids=RW_CHANGES.keys())
def test_rw_changes_land_in_the_host_folder(make_interp, tmp_path, code, changes):
    mnt = build_rw_folder(tmp_path)
    expected = host_tree(mnt)
    for path, content in changes.items():
        if content == "gone":
            expected.pop(path)
        else:
            expected[path] = content
    interp = make_interp(mounts=[Mount("/data", mnt, "rw")])
    interp.execute(code)
    assert host_tree(mnt) == expected
    # The session sees what the host has.
    seen = interp.execute(
        "import os\nsorted(os.path.relpath(os.path.join(t, n), '/data') for t, ds, fs in os.walk('/data') for n in ds + fs)"
    )
    assert seen == sorted(expected)


def test_rw_changes_are_on_the_host_as_soon_as_the_file_is_closed(make_interp, tmp_path):
    mnt = build_rw_folder(tmp_path)

    def host_read(name):
        path = mnt / name
        return path.read_text() if path.is_file() else None

    def host_isdir(name):
        return (mnt / name).is_dir()

    interp = make_interp(mounts=[Mount("/data", mnt, "rw")], tools={"host_read": host_read, "host_isdir": host_isdir})
    code = (
        "import os\n"
        "with open('/data/new.txt', 'w') as f:\n    f.write('first')\n"
        "after_write = host_read('new.txt')\n"
        "with open('/data/new.txt', 'a') as f:\n    f.write(' second')\n"
        "after_append = host_read('new.txt')\n"
        "os.mkdir('/data/made')\n"
        "after_mkdir = host_isdir('made')\n"
        "os.rename('/data/new.txt', '/data/made/new.txt')\n"
        "after_rename = (host_read('new.txt'), host_read('made/new.txt'))\n"
        "os.remove('/data/a.txt')\n"
        "after_remove = host_read('a.txt')\n"
        "(after_write, after_append, after_mkdir, after_rename, after_remove)"
    )
    assert interp.execute(code) == ("first", "first second", True, (None, "first second"), None)


def test_rw_reads_see_host_changes_made_between_calls(make_interp, tmp_path):
    mnt = build_rw_folder(tmp_path)
    interp = make_interp(mounts=[Mount("/data", mnt, "rw")])
    assert interp.execute("open('/data/a.txt').read()") == "original a"
    (mnt / "a.txt").write_text("changed on the host")
    (mnt / "host_new.txt").write_text("from the host")
    assert interp.execute("open('/data/a.txt').read(), open('/data/host_new.txt').read()") == (
        "changed on the host",
        "from the host",
    )


MOVES = {
    "rw_file_to_memory": (
        "import shutil\nshutil.move('/data/a.txt', '/scratch/a.txt')\nopen('/scratch/a.txt').read()",
        "original a",
        {"a.txt": "gone"},
        {},
    ),
    "rw_folder_to_other_rw": (
        "import shutil\nshutil.move('/data/sub', '/other/sub')\nopen('/other/sub/b.txt').read()",
        "original b",
        {"sub": "gone", "sub/b.txt": "gone"},
        {"sub": None, "sub/b.txt": b"original b"},
    ),
    "memory_file_to_rw": (
        "import shutil\nwith open('/scratch/m.txt', 'w') as f:\n    f.write('mem')\n"
        "shutil.move('/scratch/m.txt', '/other/m.txt')\nimport os\nos.path.exists('/scratch/m.txt')",
        False,
        {},
        {"m.txt": b"mem"},
    ),
}


@pytest.mark.parametrize("code, value, data_changes, other_changes", MOVES.values(), ids=MOVES.keys())
def test_shutil_move_works_across_mounts_by_copying(make_interp, tmp_path, code, value, data_changes, other_changes):
    mnt = build_rw_folder(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    expected = {}
    for folder, changes in ((mnt, data_changes), (other, other_changes)):
        expected[folder] = host_tree(folder)
        for path, content in changes.items():
            if content == "gone":
                expected[folder].pop(path)
            else:
                expected[folder][path] = content
    interp = make_interp(mounts=[Mount("/data", mnt, "rw"), Mount("/other", other, "rw")])
    interp.execute("import os\nos.makedirs('/scratch', exist_ok=True)")
    assert interp.execute(code) == value
    assert host_tree(mnt) == expected[mnt]
    assert host_tree(other) == expected[other]


# -- overlay mounts ----------------------------------------------------------------------------------------------


def build_overlay_folder(root: Path) -> Path:
    mnt = root / "ov"
    (mnt / "sub").mkdir(parents=True)
    (mnt / "keep.txt").write_text("kept")
    (mnt / "change.txt").write_text("before")
    (mnt / "delete.txt").write_text("to delete")
    (mnt / "rename.txt").write_text("to rename")
    (mnt / "sub" / "b.txt").write_text("b")
    return mnt


def test_overlay_changes_stay_in_the_session_and_the_host_is_unchanged(make_interp, tmp_path):
    mnt = build_overlay_folder(tmp_path)
    before = host_tree(mnt)
    before_mtimes = {p: os.stat(mnt / p).st_mtime_ns for p in before}
    interp = make_interp(mounts=[Mount("/data", mnt, "overlay")])
    interp.execute(
        "import os, shutil\n"
        "with open('/data/change.txt', 'w') as f:\n    f.write('after')\n"
        "with open('/data/keep.txt', 'a') as f:\n    pass\n"
        "with open('/data/new.txt', 'w') as f:\n    f.write('new')\n"
        "os.remove('/data/delete.txt')\n"
        "os.rename('/data/rename.txt', '/data/renamed.txt')\n"
        "os.mkdir('/data/made')\n"
        "with open('/data/made/inner.txt', 'w') as f:\n    f.write('inner')\n"
        "shutil.rmtree('/data/sub')"
    )
    view = (
        "import os\n"
        "(sorted(os.listdir('/data')), open('/data/keep.txt').read(), open('/data/change.txt').read(),"
        " open('/data/new.txt').read(), open('/data/renamed.txt').read(), open('/data/made/inner.txt').read(),"
        " [os.path.exists(p) for p in ('/data/delete.txt', '/data/rename.txt', '/data/sub', '/data/sub/b.txt')])"
    )
    expected_view = (
        ["change.txt", "keep.txt", "made", "new.txt", "renamed.txt"],
        "kept",
        "after",
        "new",
        "to rename",
        "inner",
        [False, False, False, False],
    )
    assert interp.execute(view) == expected_view
    assert host_tree(mnt) == before
    assert {p: os.stat(mnt / p).st_mtime_ns for p in before} == before_mtimes
    # A later call of the same session still sees its own view.
    assert interp.execute(view) == expected_view


def test_overlay_listing_merges_host_entries_and_session_entries(make_interp, tmp_path):
    mnt = build_overlay_folder(tmp_path)
    interp = make_interp(mounts=[Mount("/data", mnt, "overlay")])
    interp.execute("import os\nwith open('/data/sub/c.txt', 'w') as f:\n    f.write('c')\nos.remove('/data/delete.txt')")
    code = (
        "import os, glob\n"
        "(sorted(os.listdir('/data')), sorted(os.listdir('/data/sub')),"
        " sorted(glob.glob('/data/**/*.txt', recursive=True)),"
        " sorted((t, sorted(d), sorted(f)) for t, d, f in os.walk('/data')))"
    )
    assert interp.execute(code) == (
        ["change.txt", "keep.txt", "rename.txt", "sub"],
        ["b.txt", "c.txt"],
        ["/data/change.txt", "/data/keep.txt", "/data/rename.txt", "/data/sub/b.txt", "/data/sub/c.txt"],
        [("/data", ["sub"], ["change.txt", "keep.txt", "rename.txt"]), ("/data/sub", [], ["b.txt", "c.txt"])],
    )
    assert sorted(os.listdir(mnt / "sub")) == ["b.txt"]


def test_overlay_deleted_then_recreated_file_shows_the_new_content(make_interp, tmp_path):
    mnt = build_overlay_folder(tmp_path)
    interp = make_interp(mounts=[Mount("/data", mnt, "overlay")])
    interp.execute("import os\nos.remove('/data/delete.txt')")
    code = "try:\n    open('/data/delete.txt')\nexcept OSError as e:\n    found = (type(e).__name__, e.errno)\nfound"
    assert interp.execute(code) == ("FileNotFoundError", 2)
    interp.execute("with open('/data/delete.txt', 'w') as f:\n    f.write('again')")
    assert interp.execute("open('/data/delete.txt').read()") == "again"
    assert (mnt / "delete.txt").read_text() == "to delete"


def test_overlay_stat_sizes_follow_the_session_view(make_interp, tmp_path):
    mnt = build_overlay_folder(tmp_path)
    interp = make_interp(mounts=[Mount("/data", mnt, "overlay")])
    interp.execute("with open('/data/change.txt', 'w') as f:\n    f.write('a much longer content than before')")
    assert interp.execute("import os\nos.stat('/data/change.txt').st_size, os.stat('/data/keep.txt').st_size") == (
        len("a much longer content than before"),
        len("kept"),
    )


# -- sessions sharing a folder -----------------------------------------------------------------------------------


def test_the_same_folder_read_by_two_interpreters(make_interp, corpus):
    first = make_interp(mounts=[Mount("/data", corpus, "ro")])
    second = make_interp(mounts=[Mount("/elsewhere/corpus", corpus, "ro")])
    assert first.execute("open('/data/sub/a.txt').read()") == "alpha\n"
    assert second.execute("open('/elsewhere/corpus/sub/a.txt').read()") == "alpha\n"
    assert first.execute("import os\nsorted(os.listdir('/data'))") == second.execute(
        "import os\nsorted(os.listdir('/elsewhere/corpus'))"
    )


def test_two_interpreters_writing_to_the_same_rw_folder_both_land(make_interp, tmp_path):
    mnt = tmp_path / "shared"
    mnt.mkdir()
    first = make_interp(mounts=[Mount("/data", mnt, "rw")])
    second = make_interp(mounts=[Mount("/data", mnt, "rw")])
    first.execute("with open('/data/first.txt', 'w') as f:\n    f.write('from first')")
    second.execute("with open('/data/second.txt', 'w') as f:\n    f.write('from second')")
    assert host_tree(mnt) == {"first.txt": b"from first", "second.txt": b"from second"}
    code = "import os\nsorted(os.listdir('/data')), open('/data/first.txt').read(), open('/data/second.txt').read()"
    assert first.execute(code) == second.execute(code) == (["first.txt", "second.txt"], "from first", "from second")


def test_two_interpreters_on_the_same_overlay_folder_see_only_their_own_writes(make_interp, tmp_path):
    mnt = build_overlay_folder(tmp_path)
    before = host_tree(mnt)
    first = make_interp(mounts=[Mount("/data", mnt, "overlay")])
    second = make_interp(mounts=[Mount("/data", mnt, "overlay")])
    first.execute("with open('/data/change.txt', 'w') as f:\n    f.write('first')")
    second.execute("with open('/data/change.txt', 'w') as f:\n    f.write('second')")
    assert first.execute("open('/data/change.txt').read()") == "first"
    assert second.execute("open('/data/change.txt').read()") == "second"
    assert host_tree(mnt) == before


def test_an_interpreter_without_mounts_has_no_data_folder(make_interp, corpus):
    make_interp(mounts=[Mount("/data", corpus, "ro")]).execute("open('/data/readme.txt').read()")
    plain = make_interp()
    code = "import os\ntry:\n    os.listdir('/data')\nexcept OSError as e:\n    found = type(e).__name__\nfound"
    assert plain.execute(code) == "FileNotFoundError"
