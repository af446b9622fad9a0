"""The host's side of the session's files: ``interp.files``, ``files_written()``, quotas, what forks and
rollbacks do to files, dspy's file options, ``configured()`` and the mounts in the execution instructions."""

from __future__ import annotations

import pickle

import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError, Mount, RustInterpreter


def test_the_host_puts_files_in_and_takes_them_out(make_interp):
    interp = make_interp()
    interp.files.write("/inbox/data.csv", "a,b\n1,2\n")
    interp.files.write("/inbox/raw.bin", b"\x00\xff")
    out = interp.execute(
        "import csv\nrows = list(csv.reader(open('/inbox/data.csv')))\nprint(rows)\nopen('/inbox/raw.bin', 'rb').read()"
    )
    assert "[['a', 'b'], ['1', '2']]" in out and "b'\\x00\\xff'" in out
    interp.execute("import os\nos.makedirs('/outbox')\nwith open('/outbox/answer.txt', 'w') as f:\n    f.write('forty-two')")
    assert interp.files.read("/outbox/answer.txt") == b"forty-two"
    assert interp.files.read_text("/outbox/answer.txt") == "forty-two"
    assert interp.files.list() == ["/inbox/data.csv", "/inbox/raw.bin", "/outbox/answer.txt"]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda files: files.read("/missing.txt"), FileNotFoundError),
        (lambda files: files.read("/tmp"), IsADirectoryError),
        (lambda files: files.read("relative.txt"), ValueError),
        (lambda files: files.write("/x.txt", 42), TypeError),
        (lambda files: files.write("/tmp", "x"), IsADirectoryError),
    ],
)
def test_host_api_errors_are_the_sandbox_errors(make_interp, call, error):
    interp = make_interp()
    with pytest.raises(error):
        call(interp.files)
    assert interp.execute("1 + 1") == 2


def test_files_written_lists_what_the_last_execute_created_or_changed(make_interp, tmp_path):
    (tmp_path / "kept.txt").write_text("host")
    interp = make_interp(mounts=[Mount("/out", tmp_path, "rw")])
    interp.execute("open('/a.txt', 'w').write('1')\nopen('/b.txt', 'w').write('2')")
    assert interp.files_written() == ["/a.txt", "/b.txt"]
    interp.execute(
        "open('/b.txt', 'a').write('3')\nimport os\nos.remove('/a.txt')\n"
        "open('/out/result.txt', 'w').write('r')\nopen('/out/kept.txt').read()"
    )
    assert interp.files_written() == ["/b.txt", "/out/result.txt"]
    interp.execute("x = 1")
    assert interp.files_written() == []


def test_quotas_are_a_clear_oserror_and_lose_nothing(make_interp):
    interp = make_interp(files_max_bytes=1000, files_max_count=3)
    interp.execute("open('/small.txt', 'w').write('x' * 900)")
    with pytest.raises(CodeExecutionError, match=r"No space left on device.*1000 bytes"):
        interp.execute("with open('/big.txt', 'w') as f:\n    f.write('y' * 200)")
    with pytest.raises(CodeExecutionError, match=r"No space left on device.*at most 3 files"):
        interp.execute("for i in range(5):\n    open(f'/f{i}', 'w').close()")
    # The session is intact: what fitted is there, and deleting frees room.
    assert interp.execute("import os\nsorted(os.listdir('/'))") == ["big.txt", "dev", "f0", "small.txt", "tmp"]
    interp.execute("import os\nos.remove('/small.txt')\nopen('/again.txt', 'w').write('z' * 900)")


def test_a_fork_carries_the_files_and_its_writes_are_its_own(make_interp):
    interp = make_interp()
    interp.execute("open('/shared.txt', 'w').write('before')")
    fork = interp.fork()
    try:
        fork.execute("open('/shared.txt', 'w').write('fork')\nopen('/only_fork.txt', 'w').close()")
        assert interp.execute("print(open('/shared.txt').read())") == "before\n"
        assert fork.execute("print(open('/shared.txt').read())") == "fork\n"
        assert interp.files.list() == ["/shared.txt"]
    finally:
        fork.shutdown()


def test_a_rolled_back_cell_takes_its_file_writes_with_it(make_interp):
    interp = make_interp()
    interp.execute("open('/log.txt', 'w').write('kept\\n')")
    interp._session._inject_fault("vm")
    with pytest.raises(CodeExecutionError):
        interp.execute("open('/log.txt', 'a').write('lost\\n')")
    assert interp.files.read("/log.txt") == b"kept\n"


def test_dspy_file_options_map_to_mounts_under_sandbox(make_interp, tmp_path):
    source = tmp_path / "input.txt"
    source.write_text("read me")
    synced = tmp_path / "synced.txt"
    kept = tmp_path / "kept"
    kept.mkdir()
    interp = make_interp(enable_read_paths=[source], enable_write_paths=[synced])
    assert synced.exists()  # made when missing, as dspy does
    out = interp.execute(
        "print(open('/sandbox/input.txt').read())\nwith open('/sandbox/synced.txt', 'w') as f:\n    f.write('back')"
    )
    assert out == "read me\n"
    assert synced.read_text() == "back"
    with pytest.raises(CodeExecutionError, match="Read-only file system"):
        interp.execute("open('/sandbox/input.txt', 'w')")
    local = make_interp(enable_write_paths=[kept], sync_files=False)
    local.execute("open('/sandbox/kept/new.txt', 'w').write('session only')")
    assert local.execute("print(open('/sandbox/kept/new.txt').read())") == "session only\n"
    assert list(kept.iterdir()) == []


def test_dspy_paths_with_the_same_name_are_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.txt").write_text("1")
    (tmp_path / "b" / "x.txt").write_text("2")
    with pytest.raises(CodeInterpreterError, match="need unique basenames: .* would both be /sandbox/x.txt") as info:
        RustInterpreter(enable_read_paths=[tmp_path / "a" / "x.txt", tmp_path / "b" / "x.txt"])
    assert isinstance(info.value, ValueError)


def test_a_name_clash_is_refused_before_a_write_path_is_made(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(CodeInterpreterError, match="unique basenames"):
        RustInterpreter(enable_read_paths=[tmp_path / "a" / "x.txt"], enable_write_paths=[tmp_path / "b" / "x.txt"])
    assert not (tmp_path / "b" / "x.txt").exists()


@pytest.mark.parametrize(
    "bad",
    [{"enable_network_access": ["example.com"]}, {"slow_tool_seconds": -1}, {"timeout": 0}, {"mounts": "not a list"}],
    ids=["network", "slow-tool-seconds", "timeout", "mounts"],
)
def test_refused_options_make_no_write_path_on_the_host(tmp_path, bad):
    target = tmp_path / "out.txt"
    with pytest.raises((ValueError, TypeError)):
        RustInterpreter(enable_write_paths=[target], **bad)
    with pytest.raises((ValueError, TypeError)):
        RustInterpreter.configured(enable_write_paths=[target], **bad)
    assert not target.exists()


def test_a_write_path_overlapping_a_mount_is_refused_before_it_is_made(tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "out.txt"
    with pytest.raises(ValueError, match="overlap"):
        RustInterpreter(mounts=[Mount("/sandbox", tmp_path / "data")], enable_write_paths=[target])
    assert not target.exists()


def test_one_file_given_to_read_and_to_write_is_mounted_once_writable(make_interp, tmp_path):
    path = tmp_path / "shared.txt"
    alias = tmp_path / "alias.txt"
    interp = make_interp(enable_read_paths=[path], enable_write_paths=[path])
    interp.execute("open('/sandbox/shared.txt', 'w').write('both')")
    assert path.read_text() == "both"
    alias.symlink_to(path)
    # A symlink under another name is another sandbox name: both appear.
    other = make_interp(enable_read_paths=[alias], enable_write_paths=[path])
    assert other.execute("open('/sandbox/alias.txt').read() + open('/sandbox/shared.txt').read()") == "bothboth"


def test_configured_is_a_picklable_factory_carrying_the_mounts_in_its_instructions(tmp_path):
    (tmp_path / "doc1.md").write_text("one")
    (tmp_path / "doc2.md").write_text("two")
    (tmp_path / "table.csv").write_text("a,b")
    factory = RustInterpreter.configured(mounts=[Mount("/docs", tmp_path)], timeout=5)
    factory = pickle.loads(pickle.dumps(factory))
    instructions = factory.execution_instructions
    assert "/docs (read-only): 3 files in 0 folders" in instructions
    assert ".md: 2" in instructions and ".csv: 1" in instructions and "/docs/doc1.md" in instructions
    interp = factory()
    try:
        assert interp.execution_instructions == instructions
        assert interp.execute("import glob\nsorted(glob.glob('/docs/*.md'))") == ["/docs/doc1.md", "/docs/doc2.md"]
    finally:
        interp.shutdown()
    assert "Files:" not in RustInterpreter.configured().execution_instructions


def test_configured_refuses_bad_options_at_once():
    with pytest.raises(TypeError, match="unexpected option"):
        RustInterpreter.configured(mount=[])


def test_a_rollback_replays_mount_reads_but_never_writes_twice(make_interp, tmp_path):
    (tmp_path / "in.txt").write_text("source text")
    interp = make_interp(mounts=[Mount("/data", tmp_path / "in.txt"), Mount("/out", tmp_path, "rw")])
    interp.execute("text = open('/data').read()\nwith open('/out/log.txt', 'a') as f:\n    f.write('once\\n')")
    (tmp_path / "in.txt").write_text("changed text")
    interp._session._inject_fault("vm")
    with pytest.raises(CodeExecutionError):
        interp.execute("x = 1")
    # The replayed cell read the file again (the journal keeps no contents) and found its append answered
    # from the journal.
    assert interp.execute("text") == "changed text"
    assert (tmp_path / "log.txt").read_text() == "once\n"


def test_a_pool_with_mounts_tells_the_model_about_them_and_mounts_them(tmp_path):
    from dspy_rust_interpreter import InterpreterPool

    (tmp_path / "facts.txt").write_text("the answer is 42")
    pool = InterpreterPool(size=1, mounts=[Mount("/facts", tmp_path)])
    try:
        factory = pool.factory
        assert "- /facts (read-only): 1 files in 0 folders (.txt: 1)" in factory.execution_instructions
        interp = factory()
        try:
            assert interp.execute("print(open('/facts/facts.txt').read())") == "the answer is 42\n"
            assert interp.execution_instructions == factory.execution_instructions
        finally:
            interp.shutdown()
    finally:
        pool.close()


@pytest.mark.parametrize("kernel_path", ["/proc/self", "/proc", "/sys/kernel"])
def test_a_folder_of_a_kernel_filesystem_is_refused_as_a_mount(kernel_path):
    """/proc/self/mem and /proc/self/environ are regular files: mounted, the host would read its own memory and
    environment for the sandbox. Refused, through every door, naming the filesystem."""
    with pytest.raises(ValueError, match="is on (proc|sysfs), a kernel filesystem"):
        Mount("/data", kernel_path)
    with pytest.raises(ValueError, match="a kernel filesystem"):
        RustInterpreter(enable_read_paths=[kernel_path])


def test_a_root_path_without_a_name_is_refused_in_words(tmp_path):
    with pytest.raises(ValueError, match="has no name to appear under in /sandbox"):
        RustInterpreter(enable_read_paths=["/"])


def test_a_write_path_in_a_missing_folder_is_refused_in_words_and_nothing_is_made(tmp_path):
    target = tmp_path / "missing" / "out.txt"
    with pytest.raises(FileNotFoundError, match="neither does its folder .*create the folder first"):
        RustInterpreter(enable_write_paths=[target])
    assert not (tmp_path / "missing").exists()
