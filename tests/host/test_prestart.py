"""The plain zygote starts when the package is imported (`_zygote_process.prestart`), so that it prepares while
the rest of the import runs and the first session finds it ready. These tests pin that the first session is
forked from that zygote, that the environment can turn it off, that a process which only imports leaves no
zygote behind however it ends, and that a host forked after the import gets a zygote of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from isolated import run_child

# In the child: facts about a process by pid.
PROCESS_FACTS = """
import os
from dspy_rust_interpreter import _zygote

def parent_of(pid):
    with open(f"/proc/{pid}/stat") as file:
        return int(file.read().rsplit(")", 1)[1].split()[1])

def runs_zygote(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as file:
        return b"serve_zygote" in file.read()
"""


def _gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as file:
                if file.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.02)
    return False


def _run(script: str, env: dict[str, str] | None = None) -> list[str]:
    process = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    assert process.returncode == 0, process.stderr[-3000:]
    return process.stdout.split()


def test_the_import_starts_the_zygote_and_the_first_session_is_forked_from_it():
    results = run_child(
        PROCESS_FACTS
        + """
zygote = _zygote._zygotes.get(None)
results["started_at_import"] = zygote is not None and zygote.process.poll() is None
results["runs_zygote"] = zygote is not None and runs_zygote(zygote.process.pid)
interp = RustInterpreter()
results["value"] = interp.execute("print(6 * 7)")
results["forked_from_it"] = zygote is not None and parent_of(interp._session.pid) == zygote.process.pid
interp.shutdown()
"""
    )
    assert results["started_at_import"], "importing the package starts the plain zygote"
    assert results["runs_zygote"]
    assert results["value"] == "42\n"
    assert results["forked_from_it"], "the first session is forked from the zygote the import started"


def test_the_environment_turns_the_prestart_off():
    before, after = _run(
        """
        from dspy_rust_interpreter import RustInterpreter, _zygote
        print(len(_zygote._zygotes))
        interp = RustInterpreter()
        interp.execute("x = 1")
        print(len(_zygote._zygotes))
        interp.shutdown()
        """,
        env={"DSPY_RUST_INTERPRETER_PRESTART": "0"},
    )
    assert before == "0", "no zygote until the first session"
    assert after == "1", "the first session starts it"


def test_a_process_that_only_imports_leaves_no_zygote_behind():
    # Exits normally (the zygote is ended at exit) or is simply gone (the zygote sees its control socket end).
    for ending in ("", "os._exit(0)"):
        (pid,) = _run(f"""
            import os
            from dspy_rust_interpreter import _zygote
            print(_zygote._zygotes[None].process.pid, flush=True)
            {ending}
            """)
        assert _gone(int(pid)), f"the zygote {pid} outlived a host that only imported ({ending or 'normal exit'})"


def test_a_host_forked_after_the_import_gets_a_zygote_of_its_own():
    results = run_child(
        PROCESS_FACTS
        + """
zygote = _zygote._zygotes[None].process.pid
reader, writer = os.pipe()
child = os.fork()
if child == 0:
    try:
        interp = RustInterpreter()
        value = interp.execute("print(1 + 1)")
        line = f"{value.strip()} {parent_of(interp._session.pid)}"
        interp.shutdown()
    except BaseException as error:  # reported to the parent
        line = f"error {error!r}"
    os.write(writer, line.encode())
    os._exit(0)
os.close(writer)
os.waitpid(child, 0)
value, parent = os.read(reader, 4096).decode().split(" ", 1)
results["child_value"] = value
results["child_zygote_is_parents"] = parent.strip() == str(zygote)
interp = RustInterpreter()
results["parent_value"] = interp.execute("print(2 + 2)")
results["parent_from_its_zygote"] = parent_of(interp._session.pid) == zygote
interp.shutdown()
"""
    )
    assert results["child_value"] == "2", results
    assert not results["child_zygote_is_parents"], "a forked host does not share its parent's zygote"
    assert results["parent_value"] == "4\n"
    assert results["parent_from_its_zygote"], "the parent keeps the zygote its import started"
