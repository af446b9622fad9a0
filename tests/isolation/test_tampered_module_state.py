"""What sandbox code can do through module state it controls: `sys.modules`, the names in `builtins`,
RustPython's per-thread caches filled from them, and the host error path of tool calls.

Each scenario that could crash or hang the process runs in a child (``run_isolated``); each test fails while
the hole exists and passes once it is fixed.
"""

from __future__ import annotations

from isolated import run_isolated
from test_state_between_sessions import sessions

# --- A session's code run inside the next one, through RustPython's per-thread `_json` cache -------------------

# `planted` runs when `target` dies: it walks up to the running session's globals and overwrites its secret.
PLANTED_CALLBACK = """
import sys, types, weakref, functools, json, _json
class T: pass
target = T()
def planted(ref, ZE=ZeroDivisionError):
    try:
        1 / 0
    except ZE as e:
        frame = e.__traceback__.tb_frame
    while frame is not None:
        g = frame.f_globals
        if g.get('__name__') == '__main__' and 'SUBMIT' in g:
            g['secret'] = 'overwritten by the previous session'
            break
        frame = frame.f_back
holder = [target, weakref.ref(target, planted)]
"""

# A fake `_json` that json.dumps caches, its escaper holding the callback.
PLANT_IN_JSON_CACHE = (
    PLANTED_CALLBACK
    + """
fake = types.ModuleType('_json')
fake.encode_basestring_ascii, fake.encode_basestring = holder, None
real, sys.modules['_json'] = sys.modules['_json'], fake
json.dumps([1])
sys.modules['_json'] = real
del target, holder, fake
"""
)


def test_an_object_a_session_leaves_in_the_json_cache_does_not_run_in_the_next():
    # `json.dumps` caches, per thread, the `_json` module it found in sys.modules (the session's to choose).
    victim = "secret = 'victim'\nimport json\njson.dumps({'a': 1})\nsecret"
    runs = sessions(PLANT_IN_JSON_CACHE, victim)
    assert runs[1] == {**runs[1], "kind": "value", "value": "'victim'"}, runs[1]


# A fake `_json` whose (native) finalizer puts it back into sys.modules.
FAKE_THAT_COMES_BACK = (
    PLANTED_CALLBACK
    + """
class FakeJson: pass
fake = FakeJson()
fake.encode_basestring_ascii, fake.encode_basestring = holder, None
FakeJson.__del__ = functools.partial(sys.modules.__setitem__, '_json')
"""
)

# A fake `_json` that puts itself back into sys.modules when replaced.
PUT_BACK = FAKE_THAT_COMES_BACK + "sys.modules['_json'] = fake\ndel target, holder, fake\n"
# An object whose finalizer calls make_encoder once the modules are being finalised.
LATE_ENCODER = FAKE_THAT_COMES_BACK + (
    "class Encode: pass\n"
    "Encode.__del__ = functools.partial(_json.make_encoder, None, None, None, None, ':', ',', False, False)\n"
    "sys.ps1 = [fake, Encode()]\ndel target, holder, fake\n"
)


def test_native_finalizers_cannot_put_a_session_object_back_in_the_json_cache():
    # Native callables as finalizers run to completion even under the shutdown stop; the cache used to be
    # refilled before the modules were finalised, so such finalizers could fill it again after.
    victim = "secret = 'victim'\nimport json\njson.dumps({'a': 1})\nsecret"
    for plant in (PUT_BACK, LATE_ENCODER):
        runs = sessions(plant, victim)
        assert runs[1]["value"] == "'victim'", runs[1]


# --- Sandbox code run while the worker holds the host's GIL ----------------------------------------------------

HEARTBEAT = '''
import threading
gaps = []
def heartbeat():
    last = time.perf_counter()
    while True:
        time.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
threading.Thread(target=heartbeat, daemon=True).start()
SLOW_GARBAGE = """
import time
class Slow:
    def __del__(self, time=time):
        end = time.monotonic() + 20
        while time.monotonic() < end:
            pass
s = Slow(); s.me = s; del s
"""
'''


def test_a_finalizer_the_collector_runs_during_a_conversion_does_not_hold_the_host():
    # RustPython collects inline, on an allocation; converting values allocates, with the host's GIL held: a
    # finalizer collected then looped while every host thread waited, and no limit could act.
    results = run_isolated(
        HEARTBEAT
        + """
data = [{"row": i} for i in range(3000)]
make = lambda: RustInterpreter(timeout=2.0, abandon_after=2.0, tools={"rows": lambda: data})
interp = make()
results["runs"], results["longest_gap"] = [], []
for code, variables in [("len(data)", {"data": data}), ("len(rows())", None), ("rows()", None)]:
    outcome(interp, SLOW_GARBAGE)
    gaps.clear()
    results["runs"].append(outcome(interp, code, variables=variables))
    results["longest_gap"].append(max(gaps, default=0.0))
    if interp._session is None:
        interp = make()
""",
        timeout=150,
    )
    # The finalizer runs in the sandbox, never while the host waits on a conversion. Collections run at the VM's
    # safe points (`sandbox/vm/gc.rs`), where the stop of a finalizer that loops waits for the collection: the run
    # ends by the time limit, the grace and a rollback's replay (abandoned, the session restored), not later:
    # `timeout` + 2 x `abandon_after` + 3 s (docs/security.md).
    assert all(gap < 1.0 for gap in results["longest_gap"]), results
    assert all(run["seconds"] < 2 + 2 * 2 + 3 for run in results["runs"]), results["runs"]


def test_shutdown_stops_a_finalizer_while_another_session_keeps_the_vm_busy():
    # The shutdown stop was sent once; RustPython's wake-up flag is process-wide, and a busy VM on another thread
    # could take it first: the finalizer then ran unstopped.
    results = run_isolated(
        """
import threading
busy = RustInterpreter(timeout=60)
threading.Thread(target=lambda: outcome(busy, "while True: pass"), daemon=True).start()
time.sleep(0.5)
took = []
for _ in range(5):
    interp = RustInterpreter(timeout=5, abandon_after=5)
    interp.execute("class Slow:\\n    def __del__(self):\\n        while True:\\n            pass\\ns = Slow(); s.me = s; del s")
    started = time.perf_counter()
    interp.shutdown()
    took.append(time.perf_counter() - started)
results["took"] = took
""",
        timeout=150,
    )
    assert max(results["took"]) < 2.5, results["took"]


TOOL_ADD = """
def add(a, b):
    return a + b
"""


def test_a_rebound_exception_class_does_not_run_while_a_tool_error_is_made():
    # A host tool's TypeError became the sandbox's `builtins.TypeError(...)`, called with the GIL held: a loop in
    # it froze every host thread, beyond any time limit. The native type is made without calling any class.
    results = run_isolated(
        TOOL_ADD
        + """
interp = RustInterpreter(tools={"add": add}, timeout=5.0, abandon_after=5.0)
results["run"] = outcome(interp, '''
import builtins
class TypeError(Exception):
    def __init__(self, *args):
        while True:
            pass
builtins.TypeError = TypeError
try:
    add(1, 'x')
except BaseException as e:
    caught = (type(e).__module__, type(e).__name__, e.tool, e.host_type, str(e))
caught
''')
""",
        timeout=60,
    )
    run = results["run"]
    assert run["kind"] == "value", run
    assert "('builtins', 'TypeError', 'add', 'TypeError', \"tool 'add' failed with TypeError: unsupported operand" in run["value"]


def test_a_tool_error_with_its_exception_name_deleted_does_not_crash_the_host():
    # `del builtins.TypeError` + `del sys.modules` made the by-name lookup recurse natively with the GIL held:
    # the host process died (SIGSEGV).
    results = run_isolated(
        TOOL_ADD
        + """
interp = RustInterpreter(tools={"add": add})
results["run"] = outcome(interp, "import builtins, sys\\ndel builtins.TypeError\\ndel sys.modules\\nadd(1, 'x')")
results["after"] = outcome(interp, "2 + 2")
""",
        timeout=60,
    )
    assert results["run"]["kind"] == "error" and results["run"]["type"] == "TypeError", results["run"]
    assert "tool 'add' failed" in results["run"]["message"]
    assert results["after"] == {**results["after"], "kind": "value", "value": "4"}


# --- `sys.modules` and the modules in it -------------------------------------------------------------------


def test_deleting_sys_modules_does_not_overflow_the_stack_and_imports_keep_working():
    # A module attribute miss after `del sys.modules` recursed in RustPython until the worker's stack overflowed:
    # the session died during the run, or at shutdown (a 5 s stall and a parked thread).
    runs = sessions(
        "import sys\ndel sys.modules\nimport math\nmath.floor(2.5)",
        "import sys\ndel sys.modules\n1",
        "import sys\nsys.modules is not None",
    )
    assert [run["kind"] for run in runs] == ["value", "value", "value"], runs
    assert runs[0]["value"] == "2"


def test_the_import_system_gets_its_own_entries_back_at_the_next_run(interp):
    for damage in [
        "import sys\ndel sys.modules['sys']",
        "import sys\ndel sys.modules['builtins']",
        "import sys\nsys.modules = {}",
        "import sys\nsys.modules.clear()",
        "import sys\ndel sys.modules",
    ]:
        interp.execute(damage)
        assert interp.execute("import sys, json\n(json.dumps([1]), sys.modules['sys'] is sys)") == ("[1]", True), damage
