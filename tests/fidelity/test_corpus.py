"""Realistic cells, written the way models write them, run in the sandbox and in the reference CPython.

Each file in ``corpus/`` is one session: its cells run in order in one fresh interpreter (as an RLM, CodeAct or
ProgramOfThought loop's iterations do) and in the reference CPython over one namespace
(``cpython_cells.py``), and each cell's outcome must be the same: what ``execute()`` returns (printed text with
a trailing expression's repr, a ``SUBMIT``/``FINAL``, or an error's type and message) and, for a failing cell,
what it printed before failing.

A corpus file's format (plain Python between markers, so it reads and highlights as code):
- ``# variables: name = expression`` lines at the top bind variables for the session; the expression is
  evaluated over the names of the corpus' tool modules (``corpus/tools_*.py``) and must give JSON data;
- ``# %% title`` starts a cell;
- a ``# differs: reason`` line inside a cell marks one allowed to differ; the test checks that it still does
  (so a fix removes the mark) and that it runs.

Tools are the functions named in a tool module's ``TOOLS``: deterministic stand-ins for ``llm_query``,
``llm_query_batched`` and the tools CodeAct programs call, the same functions on both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cells import comparable, cpython_cells, in_sandbox
from cpython import readable_diff

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
TOOL_MODULES = sorted(CORPUS.glob("tools_*.py"))
SESSIONS = sorted(path for path in CORPUS.glob("*.py") if not path.name.startswith("tools_"))
CELL_MARK = re.compile(r"^# %%(.*)$", re.MULTILINE)
DIFFERS = re.compile(r"^# differs: (.+)$", re.MULTILINE)


@dataclass
class Cell:
    title: str
    source: str
    differs: str | None


@dataclass
class Session:
    variables: dict = field(default_factory=dict)
    cells: list[Cell] = field(default_factory=list)


def tool_namespace() -> dict:
    """Every name of the tool modules (tools and the helpers variables are made with)."""
    namespace: dict = {}
    for path in TOOL_MODULES:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def tools() -> dict:
    """The tools of every tool module (a name defined twice is a broken corpus)."""
    found: dict = {}
    for path in TOOL_MODULES:
        namespace: dict = {}
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
        for name in namespace.get("TOOLS", ()):
            assert name not in found, f"tool {name} is defined twice in the corpus' tool modules"
            found[name] = namespace[name]
    return found


def load(path: Path) -> Session:
    text = path.read_text(encoding="utf-8")
    parts = CELL_MARK.split(text)
    session = Session()
    namespace = tool_namespace()
    for line in parts[0].splitlines():
        if line.startswith("# variables:"):
            name, expression = line.removeprefix("# variables:").split("=", 1)
            session.variables[name.strip()] = eval(expression, namespace)  # noqa: S307 - our own corpus
    for title, source in zip(parts[1::2], parts[2::2]):
        reason = DIFFERS.search(source)
        session.cells.append(Cell(title.strip(), source.strip("\n") + "\n", reason.group(1) if reason else None))
    return session


def in_cpython(session: Session) -> list[list[str]]:
    return cpython_cells([cell.source for cell in session.cells], tools=TOOL_MODULES, variables=session.variables)


@pytest.mark.parametrize("path", SESSIONS, ids=[path.stem for path in SESSIONS])
def test_corpus_session_runs_as_in_cpython(make_interp, path: Path):
    session = load(path)
    assert session.cells, f"{path.name} has no cells"
    expected = in_cpython(session)
    interp = make_interp(tools=tools())
    problems = []
    for index, (cell, wanted) in enumerate(zip(session.cells, expected)):
        got = in_sandbox(interp, cell.source, session.variables if index == 0 else None)
        same = comparable(got) == comparable(wanted)
        if cell.differs and same:
            problems.append(f"[{cell.title}] is marked '# differs: {cell.differs}' but now runs as in CPython")
        elif not cell.differs and not same:
            shown = readable_diff("\n".join(map(str, comparable(wanted))), "\n".join(map(str, comparable(got))))
            problems.append(f"[{cell.title}]\n{cell.source}{shown}")
    assert not problems, f"{path.name}:\n\n" + "\n\n".join(problems)


def test_the_corpus_is_large_enough_and_every_allowed_difference_says_why():
    cells = [cell for path in SESSIONS for cell in load(path).cells]
    assert len(cells) >= 400, f"the corpus has {len(cells)} cells"
    assert all(cell.differs.strip() for cell in cells if cell.differs)
