"""Threads that model code starts (src/sandbox/library/stand_ins/threading.py): run one at a time by the sandbox's
scheduler from the first wait, inside the cell and under its limits; a wait nothing can end is an error, not a
hang. The patterns themselves are compared with CPython in tests/fidelity/cases/threads_model_patterns.py."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError


def test_a_wait_that_nothing_can_end_is_an_error_not_a_hang(interp):
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("import threading\nthreading.Event().wait()")
    assert raised.value.error_type == "RuntimeError"
    assert "Event.wait() would wait forever" in str(raised.value)
    # With a timeout, the wait ends as CPython's does.
    assert interp.execute("threading.Event().wait(0.01)") is False


def test_threads_left_running_run_before_the_cell_ends(interp):
    shown = interp.execute(
        "import threading\nlog = []\nfor n in range(3):\n    threading.Thread(target=log.append, args=(n,)).start()\n"
        "print('cell body done')"
    )
    assert shown == "cell body done\n"
    assert interp.execute("log") == [0, 1, 2]


def test_an_exception_ends_its_thread_and_is_printed(interp):
    shown = interp.execute(
        "import threading\ndef fail():\n    raise KeyError('k')\nt = threading.Thread(target=fail, name='W')\nt.start()\n"
        "t.join()\nprint('main goes on', t.is_alive())"
    )
    assert shown.startswith("main goes on False\n")
    assert "Exception in thread W:" in shown and "KeyError: 'k'" in shown


def test_a_thread_that_never_ends_stops_at_the_time_limit_and_the_session_lives(make_interp):
    interp = make_interp(timeout=1)
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("import threading\ndef spin():\n    while True:\n        pass\nthreading.Thread(target=spin).start()")
    assert raised.value.error_type == "TimeoutError"
    assert interp.execute("1 + 1") == 2


def test_thread_local_data_is_per_thread(interp):
    shown = interp.execute(
        "import threading\nclass Box(threading.local):\n    def __init__(self, start):\n        self.n = start\n"
        "box = Box(5)\nbox.n += 1\nseen = []\ndef worker():\n    seen.append(box.n)\n    box.n = 100\n"
        "t = threading.Thread(target=worker)\nt.start()\nt.join()\n(box.n, seen)"
    )
    assert shown == (6, [5])


def test_current_thread_and_enumerate_see_the_running_thread(interp):
    shown = interp.execute(
        "import threading\nnames = []\ndef who():\n    names.append((threading.current_thread().name, threading.active_count()))\n"
        "t = threading.Thread(target=who, name='T1')\nt.start()\nt.join()\n(names, threading.current_thread().name, threading.active_count())"
    )
    assert shown == ([("T1", 2)], "MainThread", 1)
