"""A session process is confined before any sandbox code runs: seccomp filter, no new privileges, no core
files, a data ceiling, no descriptor but its socket (and /dev/null as stdio), no environment. Read from
/proc, from outside, while a session is live."""

from __future__ import annotations

import os

import pytest

from dspy_rust_interpreter import RustInterpreter


def status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as lines:
        return dict(line.rstrip("\n").split(":\t", 1) for line in lines if ":\t" in line)


@pytest.mark.system_call_filter
def test_a_session_process_has_its_system_call_filter():
    for memory_limit in (256 << 20, None):
        interp = RustInterpreter(memory_limit=memory_limit)
        try:
            interp.execute("x = 1")
            assert status(interp._session.pid)["NoNewPrivs"].strip() == "1", "a seccomp filter is installed"
        finally:
            interp.shutdown()


def test_a_session_process_is_confined():
    interp = RustInterpreter(memory_limit=256 << 20)
    try:
        interp.execute("x = 1")
        pid = interp._session.pid
        fields = status(pid)
        assert fields["NoNewPrivs"].strip() == "1"
        with open(f"/proc/{pid}/limits") as limits:
            text = limits.read()
        core = next(line for line in text.splitlines() if line.startswith("Max core file size"))
        assert core.split()[4] == "0", core
        descriptors = {int(fd): os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        assert all(descriptors[fd] == "/dev/null" for fd in (0, 1, 2)), descriptors
        others = [target for fd, target in descriptors.items() if fd > 2]
        assert len(others) == 1 and others[0].startswith("socket:"), descriptors
        with open(f"/proc/{pid}/environ", "rb") as environ:
            assert environ.read() == b"", "no environment"
    finally:
        interp.shutdown()


def data_ceiling(pid: int) -> str:
    with open(f"/proc/{pid}/limits") as limits:
        return next(line for line in limits.read().splitlines() if line.startswith("Max data size")).split()[3]


@pytest.mark.native_process
def test_a_memory_limit_means_a_data_ceiling():
    interp = RustInterpreter(memory_limit=256 << 20)
    try:
        interp.execute("x = 1")
        assert data_ceiling(interp._session.pid) != "unlimited"
    finally:
        interp.shutdown()


def test_no_memory_limit_means_no_data_ceiling_but_the_rest_holds():
    interp = RustInterpreter(memory_limit=None)
    try:
        interp.execute("x = 1")
        assert data_ceiling(interp._session.pid) == "unlimited"
        assert status(interp._session.pid)["NoNewPrivs"].strip() == "1"
    finally:
        interp.shutdown()
