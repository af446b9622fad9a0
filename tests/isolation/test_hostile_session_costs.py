"""What a compromised session process can cost the host, beyond its own session: memory by decoding what it
sends, time by trickling or by not reading, host work by repeating a call id; and, when its code is made to
run system calls of its choice, processes that outlive it, capabilities, and memory its ceiling does not count.

The first kind play the session process with the fake zygote of test_hostile_session.py, in a child process
whose hang or crash is a failure of its own. The second attach to a real session process with ptrace (as a
debugger would) and make its main thread run the system calls: the session's seccomp filter and limits apply
to them, which is the point.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from isolated import run_child

HERE = Path(__file__).resolve().parent

# The scenario's child: an optional address-space limit set before anything is imported, the fake zygote of
# test_hostile_session.py, and a fake session process that dies with the child (PR_SET_PDEATHSIG).
PRELUDE = """
import ctypes, json, os, resource, socket, struct, sys, threading, time
ADDRESS_SPACE = {address_space!r}
if ADDRESS_SPACE:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
sys.path.insert(0, {here!r})
from test_hostile_session import frame, say_ready, session_with
from dspy_rust_interpreter import _native

def dies_with_the_test(behave):
    def guarded(sock):
        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
        behave(sock)
    return guarded

# A process (a child of the fake session process) that holds `end` of a socket pair and answers nothing; it
# ends with the host process (the test's child).
def silent_holder(end):
    if os.fork() == 0:
        # Not the test's output: the test's runner waits for that to close, not for this process.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        for _ in range(120):
            try:
                os.kill(HOST, 0)
            except ProcessLookupError:
                break
            time.sleep(0.5)
        os._exit(0)
    end.close()

def hand_over_silent_copy(sock, reply_tag):
    '''Answer with a reply (4: Checkpoint, 5: Forked) carrying the socket of a copy that never says Ready.'''
    ours, theirs = socket.socketpair()
    silent_holder(ours)
    socket.send_fds(sock, [frame(bytes([reply_tag]))], [theirs.fileno()])
    theirs.close()

HOST = os.getpid()  # the host process: the one running this script

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def run(session, *args, **kwargs):
    started = time.perf_counter()
    outcome = session.execute(*args, **kwargs)
    return {{"kind": type(outcome).__qualname__, "seconds": time.perf_counter() - started}}

results = {{}}
"""


def run_scenario(script: str, timeout: float = 90.0, address_space: int | None = None) -> dict[str, Any]:
    """Run `script` (which fills the dict `results`) in a child process; return `results`. A child that
    crashes (an abort is a signal) or is still running after `timeout` seconds fails the test."""
    source = PRELUDE.format(address_space=address_space, here=str(HERE)) + textwrap.dedent(script)
    source += "\nprint('RESULTS:' + json.dumps(results), flush=True)\n"
    try:
        process = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        process = None  # failed outside the handler, so the report is not buried under the child's script
    if process is None:
        pytest.fail(f"the host process was still running after {timeout} s: it hung", pytrace=False)
    assert process.returncode == 0, f"the host process exited with {process.returncode}:\n{process.stderr[-3000:]}"
    line = next(line for line in process.stdout.splitlines() if line.startswith("RESULTS:"))
    return json.loads(line[len("RESULTS:") :])


ENDED = ("RunOutcome.Dead", "RunOutcome.Error")


# --- Decoding a session's frame amplifies it -------------------------------------------------------------------

# Replies of SIZE bytes whose values cost the host most to build, by name: (SIZE, the reply's body). The body
# is made in the fake session process, not in the host.
NONES = "bytes([3, 0, 8]) + struct.pack('<Q', SIZE - 11) + bytes(SIZE - 11)"
HUGE_FRAMES = {
    # Done(Value(a list of one-byte Nones)) filling 8 MB: 81 host bytes per frame byte before the fix.
    "8 MB of Nones": (8 << 20, NONES),
    # The same at 40 MB: aborted a host held to 2 GiB of address space.
    "40 MB of Nones": (40 << 20, NONES),
    # Done(Value(a dict claiming as many pairs as two bytes each allow)): room for all reserved at once.
    "dict claiming size/2 pairs": (40 << 20, "bytes([3, 0, 10]) + struct.pack('<Q', (SIZE - 11) // 2) + bytes(SIZE - 11)"),
    # ToolCall("t", args=[None] * n, kwargs={}): the same through another reply.
    "tool call of 8 MB of Nones": (
        8 << 20,
        "bytes([2]) + struct.pack('<Q', 1) + b't' + struct.pack('<Q', SIZE - 26) + bytes(SIZE - 26) + struct.pack('<Q', 0)",
    ),
}


@pytest.mark.parametrize("name", list(HUGE_FRAMES))
def test_decoding_a_frame_costs_the_host_little_memory(name):
    """A frame whose values are one byte each (or whose dict claims size/2 pairs) is refused
    before the host builds them: a host held to 2 GiB of address space does not abort, the run ends with an
    error outcome, and the host's peak memory grows by less than 200 MB."""
    results = run_scenario(
        f"""
        SIZE = {HUGE_FRAMES[name][0]}

        def behave(sock):
            say_ready(sock)
            sock.recv(1 << 16)
            sock.sendall(frame({HUGE_FRAMES[name][1]}))
            time.sleep(10)

        session, error, _ = session_with(dies_with_the_test(behave))
        assert error is None, error
        before = peak_mib()
        results.update(run(session, "x = 1"))
        results["grown_mib"] = peak_mib() - before
        session.shutdown()
        """,
        address_space=2 << 30,
    )
    assert results["kind"] in ENDED, results
    assert results["grown_mib"] < 200, results


# --- The host held by a session that trickles or does not read ------------------------------------------------

TIME_BOUND = 20  # seconds: timeout (2) + 2 * abandon_after (0.5) + the 5 s a frame may take, and slack
# A session played by `behave` (defined before it), given one run.
ONE_RUN = """
        session, error, _ = session_with(dies_with_the_test(behave))
        assert error is None, error
        results.update(run(session, "x = 1"))
        session.shutdown()
"""  # indented as the scripts it ends, which run_scenario dedents with it


@pytest.mark.parametrize("trickle", ["a byte every 2 s", "frames trickled over 4 s each"])
def test_a_trickling_session_process_cannot_hold_execute(trickle):
    """A session process that sends its reply a byte at a time (within one frame, or frame after
    frame) cannot keep execute() past its timeout and the grace periods: with timeout=2, abandon_after=0.5,
    execute() returns an error outcome within 20 s."""
    results = run_scenario(
        f"""
        def a_byte_every_2_s(sock):
            # a header announcing 100 bytes, then a byte every 2 s: each renews a per-read timeout
            sock.sendall(struct.pack('<Q', 100))
            for _ in range(20):
                time.sleep(2)
                sock.sendall(b'x')

        def frames_trickled_over_4_s_each(sock):
            # whole frames (waits), each a byte at a time over 4 s: within any per-frame deadline
            wait = frame(bytes([9, 1]) + struct.pack('<d', 0.0))
            for _ in range(12):
                for byte in wait:
                    sock.sendall(bytes([byte]))
                    time.sleep(4 / len(wait))

        def behave(sock):
            say_ready(sock)
            sock.recv(1 << 16)
            {trickle.replace(" ", "_")}(sock)

        """
        + ONE_RUN
    )
    assert results["kind"] in ENDED, results
    assert results["seconds"] < TIME_BOUND, results


def test_a_session_process_that_calls_tools_and_never_reads_cannot_hold_execute():
    """A session process that sends tool call after tool call and never reads their results
    fills its socket: the host's send of a result gives up by a deadline, and execute() (timeout=2,
    abandon_after=0.5) returns an error outcome within 20 s."""
    results = run_scenario(
        """
        def behave(sock):
            say_ready(sock)
            sock.recv(1 << 16)
            call = frame(bytes([2]) + struct.pack('<Q', 3) + b'big' + struct.pack('<QQ', 0, 0))
            sock.sendall(call * 5000)
            time.sleep(60)

        session, error, _ = session_with(dies_with_the_test(behave))
        assert error is None, error
        calls = []
        tools = [("big", lambda: calls.append(1) or "x" * 100_000, None)]
        results.update(run(session, "x = 1", None, tools))
        results["calls"] = len(calls)
        session.shutdown()
        """
    )
    assert results["calls"] >= 1, "the attack reached the host: it ran the tool"
    assert results["kind"] in ENDED, results
    assert results["seconds"] < TIME_BOUND, results


@pytest.mark.parametrize("size", [900 << 10, 50 << 20], ids=["900 KiB", "50 MiB"])
def test_a_session_process_that_does_not_read_its_request_cannot_hold_execute(size):
    """A session process that never reads the Execute request (large, for its variable) cannot
    block the host's send: execute() (timeout=2, abandon_after=0.5) returns an error outcome within 20 s."""
    results = run_scenario(
        f"""
        def behave(sock):
            say_ready(sock)
            time.sleep(60)

        session, error, _ = session_with(dies_with_the_test(behave))
        assert error is None, error
        results.update(run(session, "x = 1", {{"big": "x" * {size}}}))
        session.shutdown()
        """
    )
    assert results["kind"] in ENDED, results
    assert results["seconds"] < TIME_BOUND, results


def test_a_checkpoint_that_never_answers_cannot_hold_execute():
    """The rollback is part of execute() too. A session process that hands the host a checkpoint
    socket whose holder (a child it forked) never answers, then goes silent, cannot make the rollback wait on
    that checkpoint much past the run's own limits: execute() (timeout=2, abandon_after=0.5) returns an error
    outcome within 20 s."""
    results = run_scenario(
        """
        def behave(sock):
            say_ready(sock)
            sock.recv(1 << 16)
            hand_over_silent_copy(sock, 4)
            time.sleep(60)  # silent: the run times out, and the host rolls back to that checkpoint

        """
        + ONE_RUN
    )
    assert results["kind"] in ENDED, results
    assert results["seconds"] < TIME_BOUND, results


def test_a_forked_copy_that_never_answers_cannot_hold_fork():
    """For fork(): a session process that answers Fork with the socket of a copy (a child it
    forked) that never says Ready cannot hold the host's fork() call much longer than a frame may take: it
    fails within 20 s."""
    results = run_scenario(
        """
        def behave(sock):
            say_ready(sock)
            sock.recv(1 << 16)  # the Fork request
            hand_over_silent_copy(sock, 5)
            time.sleep(60)

        session, error, _ = session_with(dies_with_the_test(behave))
        assert error is None, error
        started = time.perf_counter()
        try:
            session.fork().shutdown()
            results["error"] = None
        except Exception as exc:
            results["error"] = repr(exc)
        results["seconds"] = time.perf_counter() - started
        session.shutdown()
        """
    )
    assert results["error"] is not None, results
    assert results["seconds"] < TIME_BOUND, results


# --- One call id, many calls ----------------------------------------------------------------------------------


@pytest.mark.parametrize("pool", [True, False], ids=["concurrent calls", "no pool"])
def test_a_duplicated_call_id_runs_the_tool_at_most_once(pool):
    """3,000 ToolStart frames with the same call id (then a wait) run the host tool at most
    once: a duplicate start is refused or ends the run, whether calls run on the interpreter's pool or
    one at a time."""
    results = run_scenario(
        f"""
        from dspy_rust_interpreter import _native
        from dspy_rust_interpreter._concurrent_calls import ConcurrentCalls

        def behave(sock):
            say_ready(sock)
            sock.recv(1 << 16)
            start = frame(bytes([8]) + struct.pack('<QQ', 1, 5) + b'count' + struct.pack('<QQ', 0, 0))
            sock.sendall(start * 3000 + frame(bytes([9, 0])))
            time.sleep(10)

        session, error, _ = session_with(dies_with_the_test(behave))
        assert error is None, error
        lock, calls = threading.Lock(), []

        def count():
            with lock:
                calls.append(1)
            return 1

        pool = ConcurrentCalls(4, 0) if {pool!r} else None
        hooks = None if pool is None else _native.ToolHooks(
            pull_stream=lambda *a: (False, None), begin=pool.begin, start=pool.start, take=pool.take, abandon=pool.abandon
        )
        results.update(run(session, "x = 1", None, [("count", count, None)], None, None, hooks))
        time.sleep(1)  # calls the pool had queued finish
        results["calls"] = len(calls)
        if pool is not None:
            pool.close()
        session.shutdown()
        """
    )
    assert results["calls"] <= 1, results
    assert results["kind"] in ENDED, results


# --- System calls of the attacker's choice in a real session process ------------------------------------------


class Regs(ctypes.Structure):
    """x86-64 `struct user_regs_struct`, as PTRACE_GETREGS fills it."""

    _fields_ = [
        (name, ctypes.c_ulonglong)
        for name in "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss "
        "fs_base gs_base ds es fs gs".split()
    ]


PTRACE_POKEDATA, PTRACE_SINGLESTEP, PTRACE_GETREGS, PTRACE_SETREGS, PTRACE_DETACH = 5, 9, 12, 13, 17
PTRACE_GETEVENTMSG, PTRACE_SEIZE, PTRACE_INTERRUPT = 0x4201, 0x4206, 0x4207
PTRACE_O_TRACEFORK, PTRACE_EVENT_FORK = 0x2, 1
WAIT_ALL = 0x40000000  # __WALL
SYS_MMAP, SYS_MUNMAP, SYS_NANOSLEEP, SYS_CLONE, SYS_MADVISE = 9, 11, 35, 56, 28
# The flags glibc's fork() gives clone (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD): what the session's
# filter lets through for its checkpoints.
FORK_FLAGS = 0x01000000 | 0x00200000 | 17
NO_SYSCALL = (1 << 64) - 1  # orig_rax = -1: the stopped thread is not in a system call to restart


def can_trace() -> bool:
    return platform.machine() == "x86_64" and os.geteuid() == 0


class SystemCalls:
    """Make the main thread of process `pid` run system calls chosen here, as code that took the process over
    would, then go on as it was (a debugger's technique: PTRACE_SEIZE, point the thread at a `syscall`
    instruction of its own libc with the call's registers, single-step it, restore). The process's seccomp
    filter and limits apply to every call. A fork's child is made to sleep (nanosleep) for `child_sleeps`
    seconds instead of running on; its pid is in `children`."""

    def __init__(self, pid: int, child_sleeps: int = 600) -> None:
        self.pid = pid
        self.child_sleeps = child_sleeps
        self.children: list[int] = []
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.ptrace.restype = ctypes.c_long
        self.libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]

    def _ptrace(self, request: int, tid: int, addr: int = 0, data: Any = 0) -> int:
        result = self.libc.ptrace(request, tid, addr, data)
        if result == -1 and ctypes.get_errno():
            raise OSError(ctypes.get_errno(), f"ptrace({request:#x}) on {tid}: {os.strerror(ctypes.get_errno())}")
        return result

    def _stop(self, tid: int) -> int:
        _, status = os.waitpid(tid, WAIT_ALL)
        assert os.WIFSTOPPED(status), f"thread {tid} ended while traced: status {status:#x}"
        return status

    def _regs(self, tid: int) -> Regs:
        regs = Regs()
        self._ptrace(PTRACE_GETREGS, tid, 0, ctypes.addressof(regs))
        return regs

    def _set_regs(self, tid: int, regs: Regs) -> None:
        self._ptrace(PTRACE_SETREGS, tid, 0, ctypes.addressof(regs))

    def _syscall_instruction(self) -> int:
        """The address of bytes 0f 05 (`syscall`) in the process's executable libc pages."""
        with open(f"/proc/{self.pid}/maps") as maps:
            for line in maps:
                fields = line.split()
                if fields[1].startswith("r-x") and len(fields) > 5 and "libc.so" in fields[5]:
                    start, end = (int(part, 16) for part in fields[0].split("-"))
                    with open(f"/proc/{self.pid}/mem", "rb") as memory:
                        memory.seek(start)
                        at = memory.read(end - start).find(b"\x0f\x05")
                    if at >= 0:
                        return start + at
        raise RuntimeError("no syscall instruction found in the process's libc")

    def __enter__(self) -> SystemCalls:
        self._ptrace(PTRACE_SEIZE, self.pid, 0, PTRACE_O_TRACEFORK)
        self._ptrace(PTRACE_INTERRUPT, self.pid)
        self._stop(self.pid)
        self.saved = self._regs(self.pid)
        self.syscall_at = self._syscall_instruction()
        return self

    def __exit__(self, *exc: object) -> None:
        self._set_regs(self.pid, self.saved)
        self._ptrace(PTRACE_DETACH, self.pid)

    def call(self, number: int, *args: int) -> int:
        """Run system call `number` in the thread; its result (a negative errno when it failed)."""
        regs = Regs.from_buffer_copy(self.saved)
        regs.rip, regs.rax, regs.orig_rax = self.syscall_at, number, NO_SYSCALL
        for name, value in zip(("rdi", "rsi", "rdx", "r10", "r8", "r9"), args):
            setattr(regs, name, value & NO_SYSCALL)
        self._set_regs(self.pid, regs)
        self._ptrace(PTRACE_SINGLESTEP, self.pid)
        while True:
            status = self._stop(self.pid)
            if status >> 16 == PTRACE_EVENT_FORK:
                child = ctypes.c_ulong()
                self._ptrace(PTRACE_GETEVENTMSG, self.pid, 0, ctypes.addressof(child))
                self._put_to_sleep(child.value)
                self._ptrace(PTRACE_SINGLESTEP, self.pid)
                continue
            assert os.WSTOPSIG(status) == 5, f"the thread stopped with signal {os.WSTOPSIG(status)}, not SIGTRAP"
            break
        result = self._regs(self.pid).rax
        return result - (1 << 64) if result >= 1 << 63 else result

    def _put_to_sleep(self, child: int) -> None:
        """A fork's child (stopped, traced) sleeps: nanosleep on a timespec written onto its stack."""
        self._stop(child)
        regs = self._regs(child)
        timespec = (regs.rsp + 16) & ~15
        self._ptrace(PTRACE_POKEDATA, child, timespec, self.child_sleeps)
        self._ptrace(PTRACE_POKEDATA, child, timespec + 8, 0)
        regs.rip, regs.rax, regs.orig_rax = self.syscall_at, SYS_NANOSLEEP, NO_SYSCALL
        regs.rdi, regs.rsi = timespec, 0
        regs.eflags &= ~0x100  # no single-step trap
        self._set_regs(child, regs)
        self._ptrace(PTRACE_DETACH, child)
        self.children.append(child)


def process_status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as lines:
        return dict(line.rstrip("\n").split(":\t", 1) for line in lines if ":\t" in line)


def running(pid: int) -> bool:
    """The process exists and has not ended (a zombie has)."""
    try:
        return process_status(pid)["State"].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_a_session_process_holds_no_capabilities():
    """A session process keeps none of the host's capabilities (a root host holds them all):
    CapEff, CapPrm, CapInh and CapAmb of /proc/PID/status are 0."""
    from dspy_rust_interpreter import RustInterpreter

    interp = RustInterpreter()
    try:
        interp.execute("x = 1")
        fields = process_status(interp._session.pid)
    finally:
        interp.shutdown()
    capabilities = {name: int(fields[name], 16) for name in ("CapEff", "CapPrm", "CapInh", "CapAmb", "CapBnd")}
    held = {name: hex(value) for name, value in capabilities.items() if value and name != "CapBnd"}
    assert not held, f"the session process holds capabilities: {held} (bounding set {capabilities['CapBnd']:#x})"


# A session has at most this many processes at once: itself, its checkpoint, and its forks with theirs.
# A lineage's tasks (`protocol::process::MAX_LINEAGE_TASKS`): 64 sessions, four tasks each, and slack.
MAX_SESSION_PROCESSES = 272


@pytest.mark.skipif(not can_trace(), reason="needs x86-64 and root (ptrace of a session process)")
def test_a_session_process_cannot_fork_without_bound_nor_outlive_shutdown():
    """A session process made to fork 300 times (with the clone flags its checkpoints use; each
    child sleeps) gets at most its lineage's tasks, and none of them is still running 2 s after shutdown()."""
    results = run_child(
        f"""
        import os
        sys.path[:0] = [{str(HERE)!r}, {str(HERE.parent)!r}]
        from test_hostile_session_costs import FORK_FLAGS, SYS_CLONE, SystemCalls, running

        interp = RustInterpreter()
        interp.execute("x = 1")
        with SystemCalls(interp._session.pid) as calls:
            forks = [calls.call(SYS_CLONE, FORK_FLAGS, 0, 0, 0, 0) for _ in range(300)]
        children = calls.children
        results["forked"] = sum(pid > 0 for pid in forks)
        results["errors"] = sorted({{-pid for pid in forks if pid < 0}})
        results["running_before"] = sum(map(running, children))
        interp.shutdown()
        time.sleep(2)
        results["running_after"] = [pid for pid in children if running(pid)]
        for pid in children:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        """
    )
    assert results["forked"] <= MAX_SESSION_PROCESSES, results
    assert not results["running_after"], results


@pytest.mark.skipif(not can_trace(), reason="needs x86-64 and root (ptrace of a session process)")
def test_shared_memory_is_refused_to_a_session_process():
    """Shared memory is not counted by the session's data ceiling, so a session process made to
    map 1.5 GiB of shared anonymous memory (MAP_SHARED, or MAP_SHARED_VALIDATE) under memory_limit=64 MiB is
    refused, while a small private mapping (which the ceiling counts) is made."""
    results = run_child(
        f"""
        sys.path[:0] = [{str(HERE)!r}, {str(HERE.parent)!r}]
        from test_hostile_session_costs import SYS_MADVISE, SYS_MMAP, SYS_MUNMAP, SystemCalls, process_status

        SIZE, READ_WRITE, PRIVATE, ANONYMOUS, POPULATE_WRITE = 3 << 29, 3, 0x02, 0x20, 23
        interp = RustInterpreter(memory_limit=64 << 20)
        interp.execute("x = 1")
        pid = interp._session.pid
        with SystemCalls(pid) as calls:
            private = calls.call(SYS_MMAP, 0, 1 << 20, READ_WRITE, PRIVATE | ANONYMOUS, -1, 0)
            if private > 0:
                calls.call(SYS_MUNMAP, private, 1 << 20)
            results["private"] = private
            for name, flags in (("shared", 0x01), ("shared_validate", 0x03)):
                mapped = calls.call(SYS_MMAP, 0, SIZE, READ_WRITE, flags | ANONYMOUS, -1, 0)
                results[name] = mapped
                if mapped > 0:
                    results[name + "_populate"] = calls.call(SYS_MADVISE, mapped, SIZE, POPULATE_WRITE)
                    results[name + "_resident_shmem"] = process_status(pid)["RssShmem"].strip()
                    calls.call(SYS_MUNMAP, mapped, SIZE)
        interp.shutdown()
        """
    )
    assert results["private"] > 0, f"the injected mmap does not work at all: {results}"
    assert results["shared"] < 0 and results["shared_validate"] < 0, results
