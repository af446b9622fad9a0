"""The host trusts nothing that comes back from a session process. A fake zygote (a Python thread here)
forks a fake session process that answers the host as a compromised one would: garbage, lies about sizes,
silence in the middle of a message, messages out of place, a pidfd of another process. Each is an error for
that session only, within a bound, and the host process carries on.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from dspy_rust_interpreter import _native


def frame(body: bytes) -> bytes:
    return struct.pack("<Q", len(body)) + body


def say_ready(sock: socket.socket, pid: int | None = None, pidfd: int | None = None) -> None:
    """Reply::Ready { pid } with a pidfd, as a session process announces itself (its own, by default)."""
    pid = os.getpid() if pid is None else pid
    own = pidfd is None
    pidfd = os.pidfd_open(pid) if own else pidfd
    socket.send_fds(sock, [frame(bytes([0]) + struct.pack("<I", pid))], [pidfd])
    if own:
        os.close(pidfd)


def session_with(behave) -> tuple[object | None, BaseException | None, float]:
    """Start a native Session against a fake zygote; `behave(sock)` plays the session process on its socket.
    Returns (session or None, the error creating it or None, seconds taken)."""
    host_end, zygote_end = socket.socketpair()

    def fake_zygote():
        data, fds, _, _ = socket.recv_fds(zygote_end, 1 << 16, 4)
        child = os.fork()
        if child == 0:  # the fake session process: only socket calls, then out
            try:
                with socket.socket(fileno=fds[0]) as session_socket:
                    behave(session_socket)
            finally:
                os._exit(0)
        os.close(fds[0])
        os.waitpid(child, 0)

    thread = threading.Thread(target=fake_zygote, daemon=True)
    thread.start()
    started = time.perf_counter()
    try:
        session = _native.Session(host_end.fileno(), _native.Options(timeout=2.0, abandon_after=0.5))
        error = None
    except BaseException as exc:  # noqa: BLE001 - the test looks at it
        session, error = None, exc
    seconds = time.perf_counter() - started
    host_end.close()
    zygote_end.close()
    return session, error, seconds


def ready_then(answer: bytes, hold: float):
    """Say Ready, read the Execute request, send `answer`, then keep the socket open for `hold` seconds."""

    def behave(sock):
        say_ready(sock)
        sock.recv(1 << 16)  # the Execute request (small here)
        sock.sendall(answer)
        time.sleep(hold)

    return behave


@pytest.mark.parametrize(
    "answer",
    [
        b"\x00" * 3,  # a header cut short, then end of file
        frame(b"\xff\xee"),  # an unknown reply
        frame(bytes([3, 0, 99])),  # Done with a value of an unknown tag
        struct.pack("<Q", (1 << 48) - 1),  # a frame announced as 256 TiB (the header's whole length field)
        frame(bytes([4])),  # Checkpoint with no socket where Ready was due
    ],
    ids=["cut short", "unknown reply", "bad value", "huge frame", "out of place"],
)
def test_garbage_instead_of_ready_fails_the_start_only(answer):
    session, error, seconds = session_with(lambda sock: sock.sendall(answer))
    assert session is None and isinstance(error, (ConnectionError, RuntimeError, ValueError)), error
    assert seconds < 10


@pytest.mark.parametrize(
    ("answer", "hold"),
    [
        (frame(bytes([3, 0, 99])), 0.5),  # Done with an unknown value tag
        (struct.pack("<Q", (1 << 48) - 1), 0.5),  # a huge frame announced
        (struct.pack("<Q", 100) + b"x" * 10, 8.0),  # a frame that stops mid-way, the process silent after
        (frame(bytes([3, 0]) + bytes([8]) + struct.pack("<Q", 1 << 40)), 0.5),  # a list claiming 2**40 items
        (frame(bytes([2]) + struct.pack("<Q", 5) + b"ghost" + struct.pack("<Q", 0) * 2), 0.5),  # no such tool
        # a concurrent call of a tool never registered, then a wait whose timeout is NaN
        (
            frame(bytes([8]) + struct.pack("<QQ", 1, 5) + b"ghost" + struct.pack("<QQ", 0, 0))
            + frame(bytes([9, 1]) + struct.pack("<d", float("nan"))),
            0.5,
        ),
        # two thousand concurrent calls started at once, then a wait for ever
        (
            b"".join(frame(bytes([8]) + struct.pack("<QQ", i, 5) + b"ghost" + struct.pack("<QQ", 0, 0)) for i in range(2000))
            + frame(bytes([9, 0])),
            0.5,
        ),
    ],
    ids=[
        "bad value",
        "huge frame",
        "stalls mid-frame",
        "lying count",
        "unregistered tool",
        "started call and NaN wait",
        "flood of started calls",
    ],
)
def test_a_misbehaving_session_process_costs_only_its_session(answer, hold):
    session, error, _ = session_with(ready_then(answer, hold))
    assert error is None, error
    started = time.perf_counter()
    outcome = session.execute("x = 1")
    seconds = time.perf_counter() - started
    # No checkpoint was ever sent: the session cannot be rolled back, so it is lost, with a reason. (A tool
    # the host never registered is refused to the session, which here then goes silent.)
    assert isinstance(outcome, (_native.RunOutcome.Dead, _native.RunOutcome.Error)), outcome
    assert seconds < 12, seconds
    session.shutdown()


def test_a_session_process_cannot_hand_the_host_a_pidfd_of_another_process():
    # The host kills and signals a session through the pidfd it sends with Ready: a session taken over by
    # hostile code that sent one of another process (here a bystander) would have the host kill that one.
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        pidfd = os.pidfd_open(bystander.pid)

        def behave(sock):
            say_ready(sock, bystander.pid, pidfd)
            time.sleep(0.5)

        session, error, _ = session_with(behave)
        os.close(pidfd)
        assert session is None and "not its own" in str(error), error
        time.sleep(0.2)
        assert bystander.poll() is None, "the bystander is alive"
    finally:
        bystander.kill()
        bystander.wait()
