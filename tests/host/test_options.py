"""src/host/options.rs and dspy_rust_interpreter/_options.py: every option's default and check in one place, the
configuration handed unchanged to each session, and what protects the host checked where a session is opened,
whoever opens it."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from dspy_rust_interpreter import Mount, RustInterpreter, _native
from dspy_rust_interpreter._options import MOUNTING_OPTIONS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_defaults_are_the_ones_the_readme_lists():
    # A row is `| `name` | `default` (a note) | what it does |`; the default is a Python expression.
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]+)`", README.read_text(), re.MULTILINE))
    defaults = {**_native.Options().as_dict(), **MOUNTING_OPTIONS}
    assert set(defaults) <= set(rows), "every option has a row"
    for name, value in defaults.items():
        assert eval(rows[name], {}) == value, f"README's default for {name}: {rows[name]}"


def test_options_read_back_as_given_and_make_the_same_options_again():
    options = _native.Options(timeout=None, memory_limit=1 << 28, preload=["json", "xml.etree"], max_tool_calls=3)
    session, host = options.session, options.host
    assert (session.timeout, session.memory_limit, session.preload, host.max_tool_calls) == (
        None,
        1 << 28,
        ["json", "xml.etree"],
        3,
    )
    again = _native.Options(**options.as_dict())
    assert again.as_dict() == options.as_dict()


@pytest.mark.parametrize(
    ("name", "bad", "error", "words"),
    [
        ("timeout", True, ValueError, "timeout must be a positive number of seconds or None, got True"),
        ("timeout", float("nan"), ValueError, "timeout must be a positive number of seconds or None"),
        ("abandon_after", None, ValueError, "abandon_after must be a positive number of seconds, got None"),
        ("slow_tool_seconds", "5", ValueError, "slow_tool_seconds must be a positive number of seconds, got '5'"),
        ("memory_limit", 1.5, ValueError, "memory_limit must be a positive number of bytes or None, got 1.5"),
        ("max_tool_result_bytes", -1, ValueError, "max_tool_result_bytes must be a non-negative int or None"),
        ("preload", ["json", "not a module"], ValueError, "preload must be a list or tuple of module names"),
        ("mounts", ["/data"], TypeError, "each mount must be a Mount(path, host_path, mode), got '/data'"),
        ("strict_values", "yes", ValueError, "strict_values must be True or False, got 'yes'"),
    ],
)
def test_a_bad_value_is_named_with_what_it_should_be(name, bad, error, words):
    with pytest.raises(error, match=re.escape(words)):
        _native.Options(**{name: bad})
    with pytest.raises(error, match=re.escape(words)):
        RustInterpreter(**{name: bad})


def test_mounts_that_overlap_are_refused_even_when_they_do_not_sort_side_by_side(tmp_path):
    # "/a-b" sorts between "/a" and "/a/b": comparing neighbours only let "/a" and "/a/b" through.
    for name in ("a", "a-b", "ab"):
        (tmp_path / name).mkdir()
    mounts = [Mount("/a", tmp_path / "a"), Mount("/a-b", tmp_path / "a-b"), Mount("/a/b", tmp_path / "ab")]
    with pytest.raises(ValueError, match="mounts /a and /a/b overlap"):
        RustInterpreter(mounts=mounts)


def test_a_session_opened_directly_refuses_overlapping_mounts_too(tmp_path):
    """The native Session checks its mounts where it opens them: a caller that skips the Python layer (or
    hands it mounts of its own beside the options') cannot give one folder two sets of rules."""
    (tmp_path / "x").mkdir()
    options = _native.Options(mounts=[Mount("/data", tmp_path)])
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs, pytest.raises(ValueError, match="mounts /data and /data/x overlap"):
        _native.Session(ours.fileno(), options, [Mount("/data/x", tmp_path / "x", "rw")])


def test_a_fork_and_a_pools_interpreters_keep_the_configuration_they_were_made_with():
    from dspy_rust_interpreter import InterpreterPool

    interp = RustInterpreter(timeout=7.5, max_output_chars=5)
    try:
        copy = interp.fork()
        try:
            assert copy._configuration is interp._configuration
            assert copy.execute("print('abcdefgh')").startswith("abc\n[output truncated: 4 of 9 characters")
        finally:
            copy.shutdown()
    finally:
        interp.shutdown()
    with InterpreterPool(size=1, timeout=7.5) as pool, pool.interpreter() as pooled:
        assert pooled._configuration.options.session.timeout == 7.5


def test_waits_too_long_for_any_clock_are_the_longest_one_and_still_run():
    # abandon_after=1e19 made twice the grace overflow a Duration (a panic on the host); an infinite tool_timeout
    # was a wait Python could not hold (OverflowError on every sync tool call).
    longest = float(2**32 - 1)
    options = _native.Options(timeout=float("inf"), abandon_after=1e19, tool_timeout=float("inf"))
    assert (options.session.timeout, options.session.abandon_after, options.host.tool_timeout) == (longest, longest, longest)
    interp = RustInterpreter(timeout=1.8e19, abandon_after=1e19, tool_timeout=float("inf"), tools={"twice": lambda x: 2 * x})
    try:
        assert interp.execute("twice(21)") == 42
    finally:
        interp.shutdown()


def test_an_option_is_read_for_its_own_value_never_a_subclass_override():
    class Sneaky(int):
        def __gt__(self, other):
            return True

        def __float__(self):
            return 1.0

    class Named(str):
        def __str__(self):
            return "os"

    with pytest.raises(ValueError, match="memory_limit must be a positive number of bytes"):
        _native.Options(memory_limit=Sneaky(-5))
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        _native.Options(timeout=Sneaky(-2))
    with pytest.raises(ValueError, match="preload must be a list or tuple of module names"):
        _native.Options(preload=[Named("not a module")])
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        _native.Options(timeout=1e-320)


def test_nothing_is_made_on_the_host_when_a_later_mount_would_overlap(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "helper.py").write_text("X = 1\n")
    (tmp_path / "other").mkdir()
    new_file = tmp_path / "new.txt"
    with pytest.raises(ValueError, match="overlap"):
        RustInterpreter(
            enable_write_paths=[str(new_file)], mounts=[Mount("/packages", tmp_path / "other")], packages=[str(package)]
        )
    assert not new_file.exists()


def test_a_session_is_opened_on_a_descriptor_or_refused_in_words():
    with pytest.raises(ValueError, match="control_fd must be a file descriptor, got -1"):
        _native.Session(-1, _native.Options())


def test_a_pool_takes_a_size_and_a_wait_it_can_hold():
    from dspy_rust_interpreter import InterpreterPool

    for size in (True, 0, 2.0):
        with pytest.raises(ValueError, match="size must be a positive int"):
            InterpreterPool(size=size)
    for wait in (float("nan"), float("inf"), -1, True):
        with pytest.raises(ValueError, match="checkout_timeout must be None or a non-negative number of seconds"):
            InterpreterPool(size=1, checkout_timeout=wait)
