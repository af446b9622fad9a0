"""What sessions use is counted and given back: the host process ends where it started (memory,
descriptors), no process is left over (no zombie, no orphan), whatever the sessions did."""

from __future__ import annotations

import textwrap

import pytest
from isolated import run_isolated

# Reads the processes of the zygote's group: the zygote and every session process or checkpoint.
PROCESS_HELPERS = """
import os
from dspy_rust_interpreter import _zygote

def rss_mb():
    return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20

def descriptors():
    return len(os.listdir('/proc/self/fd'))

def group_states():
    group = _zygote._zygotes[None].process.pid
    states = []
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            stat = open(f'/proc/{pid}/stat').read()
        except OSError:
            continue
        fields = stat.rsplit(')', 1)[1].split()
        if int(fields[2]) == group and int(pid) != group:
            states.append(fields[0])
    return states
"""


def run_with_helpers(script: str, timeout: float = 120) -> dict:
    """``run_isolated`` with PROCESS_HELPERS defined first."""
    return run_isolated(PROCESS_HELPERS + textwrap.dedent(script), timeout=timeout)


def test_sessions_that_run_out_of_memory_leave_the_host_as_it_was():
    results = run_with_helpers(
        """
        def cycle():
            interp = RustInterpreter(memory_limit=32 << 20, timeout=10)
            interp.execute("keep = 1")
            try:
                interp.execute("x = [bytes(1 << 20) for _ in range(10**6)]")
            except CodeExecutionError:
                pass
            try:
                interp.execute("'\\\\t'.expandtabs(2**31-1)")
            except CodeExecutionError:
                pass
            interp.shutdown()

        for _ in range(5):
            cycle()
        rss, fds = rss_mb(), descriptors()
        for _ in range(60):
            cycle()
        time.sleep(0.5)
        results["growth_mb"] = rss_mb() - rss
        results["fds"] = [fds, descriptors()]
        results["states"] = group_states()
        """,
        timeout=600,
    )
    assert results["growth_mb"] <= 5, results
    assert results["fds"][0] == results["fds"][1], results
    assert results["states"] == [], "no session process, checkpoint or zombie is left"


# Under qemu-user the zygote's SIGCHLD disposition stays qemu's (it emulates the guest's signals), so the kernel
# does not reap ended sessions for it: they stay zombies until the zygote ends.
@pytest.mark.native_process
def test_a_session_keeps_a_bounded_number_of_processes_and_shutdown_ends_them():
    results = run_with_helpers(
        """
            interp = RustInterpreter()
            for i in range(20):
                interp.execute(f"x = {i}")
            time.sleep(0.2)
            results["short runs"] = sorted(group_states())
            interp.execute("s = sum(range(3 * 10**6))")  # checkpointed only with the runs after it
            for i in range(100):
                interp.execute(f"x = {i}")
            time.sleep(0.2)
            results["a long run, then many"] = sorted(group_states())
            interp.shutdown()
            time.sleep(0.5)
            results["after"] = group_states()
        """
    )
    # Short runs are journaled: the session process alone (a rollback replays them into a new one).
    assert results["short runs"] == ["S"], results
    # Every 64 runs (or a second of runs) leave a checkpoint; the one before it ends, so at most two are alive
    # (the latest, and the next whose socket the host takes with the next run).
    assert 2 <= len(results["a long run, then many"]) <= 3, results
    assert "Z" not in results["a long run, then many"]
    assert results["after"] == [], results


def test_the_zygote_and_its_sessions_end_with_the_host():
    results = run_with_helpers(
        """
        import subprocess, sys, textwrap
        child = subprocess.Popen([sys.executable, "-c", textwrap.dedent('''
            import sys, time
            from dspy_rust_interpreter import RustInterpreter, _zygote
            interp = RustInterpreter(timeout=None)
            interp.execute("x = 1")
            print(_zygote._zygotes[None].process.pid, interp._session.pid, flush=True)
            interp.execute("while True: pass")
        ''')], stdout=subprocess.PIPE, text=True)
        zygote, session = map(int, child.stdout.readline().split())
        child.kill()
        child.wait()
        time.sleep(1.0)
        def running(pid):
            try:
                return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
            except OSError:
                return False
        results["left"] = [pid for pid in (zygote, session) if running(pid)]
        """
    )
    assert results["left"] == [], "a host killed mid-run takes its zygote and sessions with it"


# Runs of a second in all: the session forks a checkpoint.
CHECKPOINT_RUN = "interp.execute('import time\\nt = time.monotonic()\\nwhile time.monotonic() - t < 1.1:\\n    pass')"


@pytest.mark.parametrize("runs", ["", CHECKPOINT_RUN], ids=["before-its-first-checkpoint", "from-its-checkpoint"])
def test_a_killed_zygote_is_started_again_and_live_sessions_go_on(runs):
    # A killed zygote takes its sessions with it (PDEATHSIG). A session with a checkpoint resumes it; one
    # without is brought back by a new process from a new zygote, into which its runs are replayed.
    results = run_with_helpers(
        f"""
            import signal
            interp = RustInterpreter()
            interp.execute("x = 41")
            {runs}
            interp.execute("y = 1")
            time.sleep(0.3)
            first = _zygote._zygotes[None].process.pid
            os.kill(first, signal.SIGKILL)
            time.sleep(0.3)
            results["new"] = outcome(RustInterpreter(), "40 + 2")
            results["zygotes"] = [first, _zygote._zygotes[None].process.pid]
            results["old"] = outcome(interp, "x + y")
            results["again"] = outcome(interp, "x + y")
            interp.shutdown()
        """
    )
    assert results["new"]["value"] == "42", results
    assert results["zygotes"][0] != results["zygotes"][1]
    assert results["again"]["value"] == "42", results


def _status_kb(pid: int, field: str) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


# One small block kept alive in every page of every small size, the rest freed: few bytes live, every page
# pinned. A session is charged for the pages it holds, so the limit stops this long before it holds more.
FRAGMENTING = """
keep = []
for size in range(8, 1024, 16):
    blocks = [bytes(size) for _ in range(20_000)]
    keep.extend(blocks[::64])
    del blocks
"""


def test_memory_pinned_by_fragmenting_small_blocks_is_charged_to_the_session():
    from dspy_rust_interpreter import CodeExecutionError, RustInterpreter

    limit = 128 << 20
    interp = RustInterpreter(memory_limit=limit, timeout=60)
    try:
        interp.execute("keep = None")
        pid = interp._session.pid
        resident_before = _status_kb(pid, "VmRSS") << 10
        with pytest.raises(CodeExecutionError) as stopped:
            interp.execute(FRAGMENTING)
        peak = _status_kb(pid, "VmHWM") << 10
        assert stopped.value.error_type == "MemoryError"
        assert peak - resident_before < limit * 5 // 4, (peak - resident_before) >> 20
        assert interp.execute("len(keep) > 0") is True, "the session lives on with what it kept"
    finally:
        interp.shutdown()
