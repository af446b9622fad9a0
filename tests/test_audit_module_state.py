"""Audit of what sandbox code can do through module state it controls: `sys.modules`, the names in `builtins`,
RustPython's per-thread caches filled from them, and the host error path of tool calls.

Each scenario that could crash or hang the process runs in a child (``run_isolated``); each test fails while
the hole exists and passes once it is fixed.
"""

from __future__ import annotations

from isolated import run_isolated
from test_audit_thread_reuse import sessions

# --- A session's code run inside the next one, through RustPython's per-thread `_json` cache -------------------

PLANT_IN_JSON_CACHE = """
import sys, types, weakref, json
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
fake = types.ModuleType('_json')
fake.encode_basestring_ascii, fake.encode_basestring = holder, None
real, sys.modules['_json'] = sys.modules['_json'], fake
json.dumps([1])
sys.modules['_json'] = real
del target, holder, fake
"""


def test_an_object_a_session_leaves_in_the_json_cache_does_not_run_in_the_next():
    # `json.dumps` caches, per thread, the `_json` module it found in sys.modules (the session's to choose).
    victim = "secret = 'victim'\nimport json\njson.dumps({'a': 1})\nsecret"
    runs = sessions(PLANT_IN_JSON_CACHE, victim)
    assert runs[1] == {**runs[1], "kind": "value", "value": "'victim'"}, runs[1]


# --- Sandbox code run while the worker holds the host's GIL ----------------------------------------------------

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
    assert "('builtins', 'TypeError', 'add', 'TypeError', \"tool 'add' failed: unsupported operand" in run["value"]


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
