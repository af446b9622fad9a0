"""sqlite3 in the sandbox: SQLite is native code inside the session process, so each way it could reach past the
session is an attack here, run in a child process with a hard time bound: it opens no host file (a path, a URI,
ATTACH, VACUUM INTO), loads no extension, and the session's time and memory limits hold inside a query. What it
does offer: in-memory databases, and a path naming a database that lives in the session (kept across cells,
connections, checkpoints and forks, as a file on the sandbox's filesystem would be)."""

from __future__ import annotations

import os

import pytest
from isolated import run_child

HOST_FILE = "/tmp/dspy_rust_interpreter_sqlite_attack.db"


@pytest.fixture
def no_host_file():
    if os.path.exists(HOST_FILE):
        os.remove(HOST_FILE)
    yield HOST_FILE
    assert not os.path.exists(HOST_FILE), "the sandbox created a file on the host"


# Each attack either fails or reaches only the session's own (empty) database of that name; none reads or
# writes a host file.
ATTACKS = {
    "connect_host_path": f"import sqlite3\nsqlite3.connect({HOST_FILE!r}).execute('create table t(x)')\nopen({HOST_FILE!r}).read()",
    "connect_host_uri": "import sqlite3\nsqlite3.connect('file:/etc/passwd?mode=ro', uri=True).execute('select * from sqlite_master').fetchall()",
    "read_host_database": "import sqlite3\nsqlite3.connect('/etc/passwd').execute('select * from sqlite_master').fetchall()",
    "host_database_file": "import sqlite3\nsqlite3.connect('/proc/self/environ').execute('pragma schema_version').fetchall()",
    "attach_host_path": f"import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute(\"attach database '{HOST_FILE}' as evil\")\nc.execute('create table evil.t(x)')",
    "vacuum_into_host": f"import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute('create table t(x)')\nc.execute(\"vacuum into '{HOST_FILE}'\")",
    "load_extension_sql": "import sqlite3\nsqlite3.connect(':memory:').execute(\"select load_extension('/lib/x86_64-linux-gnu/libc.so.6')\").fetchall()",
    "enable_load_extension": "import sqlite3\nc = sqlite3.connect(':memory:')\nc.enable_load_extension(True)\nc.load_extension('/lib/x86_64-linux-gnu/libc.so.6')",
}


# ATTACH and VACUUM INTO open the path they name with SQLite's own file layer: the filter refuses the `openat`.
BY_THE_FILTER = ("attach_host_path", "vacuum_into_host")


@pytest.mark.parametrize(
    "attack",
    [pytest.param(name, marks=[pytest.mark.system_call_filter] if name in BY_THE_FILTER else []) for name in ATTACKS],
    ids=list(ATTACKS),
)
def test_sqlite_reaches_no_host_file_and_loads_no_code(no_host_file, attack):
    results = run_child(
        f"""
        interp = RustInterpreter(timeout=10)
        results["attack"] = outcome(interp, {ATTACKS[attack]!r})
        results["after"] = outcome(interp, "21 * 2")
        interp.shutdown()
        """,
        timeout=120,
    )
    attack = results["attack"]
    assert attack["kind"] == "error" or attack["value"] in ("[]", "[(0,)]"), attack
    assert "root:" not in str(attack), attack
    assert results["after"] == {**results["after"], "kind": "value", "value": "42"}


def test_a_runaway_query_is_stopped_by_the_time_limit_and_the_session_goes_on():
    results = run_child(
        """
        interp = RustInterpreter(timeout=2)
        results["query"] = outcome(interp, "import sqlite3\\nc = sqlite3.connect(':memory:')\\n"
            "c.execute('with recursive n(x) as (select 1 union all select x + 1 from n) select count(*) from n').fetchall()")
        results["after"] = outcome(interp, "21 * 2")
        interp.shutdown()
        """,
        timeout=120,
    )
    # The limit's own error, though SQLite turned the exception its progress handler raised into its own
    # OperationalError; and no rollback: the query stopped within the limit, not at the abandon deadline.
    assert results["query"]["type"] == "TimeoutError" and results["query"]["seconds"] < 4.5, results["query"]
    assert "exceeded the time limit of 2" in results["query"]["message"], results["query"]
    assert results["after"]["kind"] == "value" and results["after"]["value"] == "42", results["after"]


def test_sqlites_memory_is_inside_the_memory_limit():
    # SQLite allocated with malloc, past the counted allocator, and a 64 MiB session grew
    # 322-337 MiB through a table. Its memory is the session's now: a table past the limit is a MemoryError in
    # the cell, within the limit, the statement rolled back, the same process goes on.
    results = run_child(
        """
        def status_kib(pid, field):
            with open(f"/proc/{pid}/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))
        interp = RustInterpreter(timeout=60, memory_limit=64 * 2**20)
        interp.execute("import sqlite3\\nc = sqlite3.connect(':memory:')\\nc.execute('create table t(b)')")
        pid = interp._session.pid
        before = status_kib(pid, "VmRSS")
        results["table"] = outcome(interp, "c.execute('with recursive n(x) as (select 1 union all select x + 1 "
            "from n where x < 1000000) insert into t select randomblob(1000) from n')")
        results["grew_mib"] = (status_kib(pid, "VmHWM") - before) / 1024
        results["blob"] = outcome(interp, "c.execute('select randomblob(200000000)').fetchone()")
        results["same_process"] = interp._session.pid == pid
        results["rows"] = outcome(interp, "c.execute('select count(*) from t').fetchone()[0]")
        results["after"] = outcome(interp, "c.execute('insert into t values (1)')\\n21 * 2")
        interp.shutdown()
        """,
        timeout=120,
    )
    assert results["table"]["type"] == "MemoryError", results["table"]
    assert results["grew_mib"] < 96, results
    assert results["blob"]["type"] == "MemoryError", results["blob"]
    assert results["same_process"], "the session was rolled back: SQLite's memory killed its process"
    assert results["rows"]["value"] == "0" and results["after"]["value"] == "42", results


# A query past the limit is stopped, wherever SQLite holds its memory.
@pytest.mark.native_process
def test_a_query_that_grows_past_the_memory_limit_is_stopped_and_the_session_goes_on():
    results = run_child(
        """
        interp = RustInterpreter(timeout=20, memory_limit=256 * 2**20)
        results["query"] = outcome(interp, "import sqlite3\\nc = sqlite3.connect(':memory:')\\n"
            "c.execute('create table t(b)')\\n"
            "c.execute('with recursive n(x) as (select 1 union all select x + 1 from n where x < 4000) "
            "insert into t select zeroblob(1000000) from n')")
        results["after"] = outcome(interp, "21 * 2")
        interp.shutdown()
        """,
        timeout=120,
    )
    assert results["query"]["type"] == "MemoryError", results["query"]
    assert results["after"]["kind"] == "value" and results["after"]["value"] == "42", results["after"]


def test_sqlite_works_in_memory_and_on_a_path_of_the_session(make_interp):
    interp = make_interp()
    interp.execute(
        "import sqlite3\n"
        "db = sqlite3.connect('shop.db')\n"
        "db.execute('create table items(name text, price real)')\n"
        "db.executemany('insert into items values (?, ?)', [('pen', 1.5), ('book', 12.0)])\n"
        "db.commit()\n"
        "db.close()"
    )
    # Another connection, in a later cell, finds the data the path names.
    assert interp.execute(
        "again = sqlite3.connect('shop.db')\nagain.execute('select name, price from items order by price').fetchall()"
    ) == [("pen", 1.5), ("book", 12.0)]
    assert interp.execute(
        "m = sqlite3.connect(':memory:')\nm.row_factory = sqlite3.Row\n"
        "row = m.execute(\"select 1 as a, 'x' as b\").fetchone()\n(row['a'], row['b'], sqlite3.sqlite_version_info >= (3, 35))"
    ) == (1, "x", True)
