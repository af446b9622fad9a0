"""``interp.fork()``: a new interpreter with an identical, independent copy of the session."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError, CodeInterpreterError


def test_a_fork_has_every_kind_of_state_and_then_its_own(make_interp):
    interp = make_interp(tools={"double": lambda x: 2 * x})
    interp.execute(
        "import json\nimport collections\ncounter = collections.Counter('abca')\n"
        "class Point:\n    def __init__(self, x):\n        self.x = x\np = Point(3)\n"
        "def area():\n    return p.x * p.x\nitems = [1, 2]"
    )
    copy = interp.fork()
    try:
        assert copy.execute("(counter['a'], area(), items, json.dumps({'k': 1}), double(21))") == (
            2,
            9,
            [1, 2],
            '{"k": 1}',
            42,
        )
        copy.execute("items.append(3)\np.x = 10")
        interp.execute("items.append('original')")
        assert copy.execute("(items, area())") == ([1, 2, 3], 100)
        assert interp.execute("(items, area())") == ([1, 2, "original"], 9)
        assert copy._session.pid != interp._session.pid
    finally:
        copy.shutdown()
    assert interp.execute("len(items)") == 3, "the original goes on after its copy is shut down"


def test_many_forks_of_one_prepared_session_are_independent(make_interp):
    base = make_interp()
    base.execute("import random\nrandom.seed(7)\ndata = list(range(5))")
    forks = [base.fork() for _ in range(4)]
    try:
        for i, fork in enumerate(forks):
            fork.execute(f"data.append({i})")
        assert [f.execute("data[-1]") for f in forks] == [0, 1, 2, 3]
        # Same seeded state in every copy: a best-of-N sampler starts each branch alike.
        assert len({f.execute("random.random()") for f in forks}) == 1
    finally:
        for fork in forks:
            fork.shutdown()


def test_a_fork_survives_a_fault_of_its_own(make_interp):
    interp = make_interp()
    interp.execute("x = 1")
    copy = interp.fork()
    try:
        copy.execute("x = 2")
        copy._session._inject_fault("abort")
        with pytest.raises(CodeExecutionError, match="before this cell"):
            copy.execute("x = 3")
        assert copy.execute("x") == 2
        assert interp.execute("x") == 1
    finally:
        copy.shutdown()


def test_a_shut_down_interpreter_cannot_be_forked(make_interp):
    interp = make_interp()
    interp.execute("x = 1")
    interp.shutdown()
    with pytest.raises(CodeInterpreterError):
        interp.fork()
