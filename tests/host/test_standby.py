"""The zygote's standby: after serving a `Spawn`, the zygote forks a session process for the same request ahead
(confined, set up, waiting for a socket), so that the next session with the same options and tools — RLM makes
one per call — skips the fork and the set-up. These tests pin that it is used, that it is discarded when another
kind of session is asked for, that it never serves two sessions or carries one session's state into another,
and that it does not outlive its zygote or make an idle package set look busy."""

from __future__ import annotations

from isolated import run_child

# In the child: the zygote's processes, and each one's process group.
ZYGOTE_PROCESSES = """
import os
from dspy_rust_interpreter import _zygote

def zygote_pid():
    return _zygote._zygotes[None].process.pid

def children(pid):
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as file:
            found.update(int(child) for child in file.read().split())
    return found

def wait_for(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False

def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
"""


def test_the_next_session_with_the_same_options_is_the_standby_and_another_kind_discards_it():
    results = run_child(
        ZYGOTE_PROCESSES
        + """
first = RustInterpreter(timeout=30)
first.execute("x = 1")
zygote = zygote_pid()
# The zygote forks the standby once it has served the first Spawn.
results["standby_made"] = wait_for(lambda: len(children(zygote) - {first._session.pid}) == 1)
standby = (children(zygote) - {first._session.pid}).pop()
results["standby_group_own"] = os.getpgid(standby) == standby != zygote

second = RustInterpreter(timeout=30)
second.execute("y = 2")
results["second_is_standby"] = second._session.pid == standby
results["second_in_zygote_group"] = os.getpgid(second._session.pid) == zygote
results["second_fresh"] = outcome(second, "print('x' in globals(), '_rehearsed' in globals(), y)")["value"]
# What a standby rehearsed is not the session's: its first error names the session's own cells, as a session
# forked on demand names them.
wait_for(lambda: len(children(zygote) - {first._session.pid, second._session.pid}) == 1)
standby = (children(zygote) - {first._session.pid, second._session.pid}).pop()
third = RustInterpreter(timeout=30)
results["first_error_in_standby"] = outcome(third, "def f():\\n    return 1 / 0\\nf()")["message"]
results["third_is_standby"] = third._session.pid == standby
forked = RustInterpreter(timeout=31)  # other options: forked for the request
results["first_error_forked"] = outcome(forked, "def f():\\n    return 1 / 0\\nf()")["message"]
third.shutdown()
forked.shutdown()

# A new standby for the same options, then a session with other options: that standby is let go.
results["standby_again"] = wait_for(lambda: len(children(zygote) - {first._session.pid, second._session.pid}) == 1)
standby = (children(zygote) - {first._session.pid, second._session.pid}).pop()
other = RustInterpreter(timeout=7)
other.execute("z = 3")
results["other_not_standby"] = other._session.pid != standby
results["old_standby_ended"] = wait_for(lambda: not alive(standby))
for interp in (first, second, other):
    interp.shutdown()
"""
    )
    assert results["standby_made"], "the zygote forks a standby after a Spawn"
    assert results["standby_group_own"], "a standby is in a process group of its own until it serves"
    assert results["second_is_standby"], "the next session with the same options is the standby"
    assert results["second_in_zygote_group"], "once it serves, it is in the zygote's group, which ends with it"
    assert results["second_fresh"] == repr("False False 2\n"), "the standby starts from the zygote, not from another session"
    assert results["third_is_standby"]
    assert results["first_error_in_standby"] == results["first_error_forked"], "a standby's rehearsal leaves no trace"
    assert "<cell 1>" in results["first_error_in_standby"] or "line 2" in results["first_error_in_standby"]
    assert results["standby_again"]
    assert results["other_not_standby"], "a session with other options is forked for it"
    assert results["old_standby_ended"], "a standby nobody will take ends"


def test_a_session_with_other_tools_is_not_served_by_the_standby_of_another_tool_set():
    results = run_child(
        ZYGOTE_PROCESSES
        + """
def search(query: str) -> str:
    return "found " + query

def fetch(url: str, retries: int = 2) -> str:
    return url

first = RustInterpreter(tools={"search": search})
first.execute("print(search('a'))")
zygote = zygote_pid()
results["made"] = wait_for(lambda: len(children(zygote) - {first._session.pid}) == 1)
standby = (children(zygote) - {first._session.pid}).pop()
second = RustInterpreter(tools={"fetch": fetch})
results["second"] = outcome(second, "import inspect\\nprint(str(inspect.signature(fetch)), 'search' in globals())")
results["second_is_standby"] = second._session.pid == standby
third = RustInterpreter(tools={"fetch": fetch})
results["third"] = outcome(third, "print(fetch('u'))")
for interp in (first, second, third):
    interp.shutdown()
"""
    )
    assert results["made"]
    assert not results["second_is_standby"], "other tools: another Spawn, so not the standby"
    assert results["second"]["kind"] == "value", results["second"]
    assert results["third"]["kind"] == "value", results["third"]


def test_a_standby_ends_with_its_host_process():
    results = run_child(
        ZYGOTE_PROCESSES
        + """
import os, subprocess, sys, textwrap
host = textwrap.dedent('''
    import os, sys, time
    from dspy_rust_interpreter import RustInterpreter, _zygote
    interp = RustInterpreter()
    interp.execute("x = 1")
    zygote = _zygote._zygotes[None].process.pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = set()
        for task in os.listdir(f"/proc/{zygote}/task"):
            found.update(int(c) for c in open(f"/proc/{zygote}/task/{task}/children").read().split())
        found.discard(interp._session.pid)
        if found:
            break
        time.sleep(0.01)
    print(" ".join(map(str, [zygote, interp._session.pid, *found])), flush=True)
    os._exit(0)  # no shutdown: the host is simply gone
''')
child = subprocess.run([sys.executable, "-c", host], capture_output=True, text=True, timeout=60)
pids = [int(p) for p in child.stdout.split()]
results["pids"] = len(pids)
deadline = time.monotonic() + 10
while time.monotonic() < deadline and any(alive(pid) for pid in pids):
    time.sleep(0.02)
results["left"] = [pid for pid in pids if alive(pid)]
"""
    )
    assert results["pids"] == 3, "the zygote, the session and the standby"
    assert results["left"] == [], "nothing of a host process outlives it, its standby included"


def test_an_idle_package_set_with_only_a_standby_can_be_retired():
    results = run_child(
        ZYGOTE_PROCESSES
        + """
from dspy_rust_interpreter import _zygote
interp = RustInterpreter()
interp.execute("x = 1")
zygote = zygote_pid()
wait_for(lambda: len(children(zygote) - {interp._session.pid}) == 1)
results["busy_with_session"] = _zygote._group_has_others(zygote)
interp.shutdown()
results["idle_after"] = wait_for(lambda: not _zygote._group_has_others(zygote))
results["standby_still_there"] = len(children(zygote)) >= 1
"""
    )
    assert results["busy_with_session"]
    assert results["idle_after"], "the standby alone does not make the zygote look busy"
    assert results["standby_still_there"]
