"""Every case file, in one runner: each runs in a fresh sandbox session and in the reference CPython, cell by cell
(as an RLM, CodeAct or ProgramOfThought loop's iterations run), and each cell's outcome must be the same: what
``execute()`` returns (printed text with a trailing expression's repr, a ``SUBMIT``/``FINAL``, or an error's type
and message) and, for a failing cell, what it printed before failing (``cells.py`` puts both in one shape).

The case folders (``FOLDERS``), each a concept of its own:
- ``fidelity/cases/``: one program a file, named by the behaviour it pins (the language, the standard library,
  CPython's words for errors, which a case shows as ``type: message`` itself), run by CPython as a program (its
  ``sys.stdout`` is the process's own, which some cases inspect) and compared by what it printed.
- ``files/cases/``: one program a file on the filesystem, run in an empty current directory (CPython's: a fresh
  temporary directory, shown as ``/case``; the sandbox's: a fresh ``/case``), with relative paths.
- ``fidelity/corpus/``: realistic sessions, written the way models write them: ``# variables: name = expression``
  lines at the top bind variables (evaluated over the names of the tool modules ``corpus/tools_*.py``, whose
  ``TOOLS`` are deterministic stand-ins for ``llm_query`` and the tools CodeAct programs call, the same functions
  on both sides), and ``# %% title`` starts each cell.
- ``fidelity/data/``: sessions of the same shape over numpy, pandas, matplotlib and scipy, with those packages
  (``packages``); the reference is the host's own CPython, whose libraries the sandbox runs, in a fresh directory.

In any case file, a ``# differs: reason`` line marks a cell allowed to differ; the test checks that it still does
(so a fix removes the mark). Every case's output is deterministic (no times, ids, addresses), and a program's last
statement is not an expression with a value (the sandbox would show that value's repr).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cells import comparable, cpython_cells, in_sandbox
from cpython import cpython_output, readable_diff, reference_python

TESTS = Path(__file__).resolve().parent.parent
CORPUS = TESTS / "fidelity" / "corpus"
TOOL_MODULES = sorted(CORPUS.glob("tools_*.py"))
CELL_MARK = re.compile(r"^# %%(.*)$", re.MULTILINE)
DIFFERS = re.compile(r"^# differs: (.+)$", re.MULTILINE)
# Where a case that runs in a directory starts, in the sandbox (and CPython's temporary directory is shown as).
CASE_DIR = "/case"


@dataclass(frozen=True)
class Folder:
    """A folder of case files and how its cases run."""

    path: Path
    # Cells marked with `# %%`, with `# variables:` and the corpus' tools; otherwise the file is one cell.
    sessions: bool = False
    # CPython runs the file as a program (`python -c`), not as a cell: what it printed is its outcome.
    program: bool = False
    # Run in a fresh, empty current directory.
    in_directory: bool = False
    # The sandbox's time limit per cell (a big filesystem case on a loaded two-core machine needs more than 30 s).
    timeout: float = 30.0
    # At least this many cells (a folder that lost its files fails).
    least_cells: int = 1
    # The `packages` option of the sandbox; with packages, the reference is this test process's own Python (the
    # libraries the sandbox runs are its).
    packages: tuple[str, ...] = ()

    def reference(self) -> str:
        return sys.executable if self.packages else reference_python()


FOLDERS = [
    Folder(TESTS / "fidelity" / "cases", program=True, least_cells=20),
    Folder(TESTS / "files" / "cases", in_directory=True, timeout=120.0, least_cells=80),
    Folder(CORPUS, sessions=True, least_cells=400),
    Folder(
        TESTS / "fidelity" / "data",
        sessions=True,
        in_directory=True,
        timeout=120.0,
        least_cells=200,
        packages=("numpy", "pandas", "matplotlib", "scipy"),
    ),
]


@dataclass
class Cell:
    title: str
    source: str
    differs: str | None


@dataclass
class Case:
    folder: Folder
    path: Path
    variables: dict = field(default_factory=dict)
    cells: list[Cell] = field(default_factory=list)


def case_files(folder: Folder) -> list[Path]:
    return sorted(path for path in folder.path.glob("*.py") if not path.name.startswith("tools_"))


def tool_namespace() -> dict:
    """Every name of the corpus' tool modules (tools and the helpers variables are made with)."""
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


def load(folder: Folder, path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    case = Case(folder, path)
    if not folder.sessions:
        reason = DIFFERS.search(text)
        case.cells.append(Cell(path.stem, text, reason.group(1) if reason else None))
        return case
    parts = CELL_MARK.split(text)
    namespace = tool_namespace()
    for line in parts[0].splitlines():
        if line.startswith("# variables:"):
            name, expression = line.removeprefix("# variables:").split("=", 1)
            case.variables[name.strip()] = eval(expression, namespace)  # noqa: S307 - our own corpus
    for title, source in zip(parts[1::2], parts[2::2]):
        reason = DIFFERS.search(source)
        case.cells.append(Cell(title.strip(), source.strip("\n") + "\n", reason.group(1) if reason else None))
    return case


def in_cpython(case: Case) -> list[list[str]]:
    sources = [cell.source for cell in case.cells]
    if case.folder.program:
        return [["value", cpython_output(source, python=case.folder.reference()), "", ""] for source in sources]
    modules = TOOL_MODULES if case.folder.sessions else []
    python = case.folder.reference()
    if not case.folder.in_directory:
        return cpython_cells(sources, tools=modules, variables=case.variables, python=python)
    workdir = tempfile.mkdtemp(prefix="case-")
    try:
        outcomes = cpython_cells(sources, tools=modules, variables=case.variables, cwd=workdir, python=python)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    spellings = {os.path.realpath(workdir), workdir}
    return [[_shown_as_case_dir(part, spellings) for part in outcome] for outcome in outcomes]


def _shown_as_case_dir(text: str, spellings: set[str]) -> str:
    for spelling in spellings:
        text = text.replace(spelling, CASE_DIR)
    return text


CASES = [(folder, path) for folder in FOLDERS for path in case_files(folder)]


@pytest.mark.parametrize(
    ("folder", "path"), CASES, ids=[f"{path.parent.parent.name}/{path.parent.name}/{path.stem}" for _, path in CASES]
)
def test_case_runs_as_in_cpython(make_interp, folder: Folder, path: Path):
    case = load(folder, path)
    assert case.cells, f"{path.name} has no cells"
    expected = in_cpython(case)
    options = {"packages": list(folder.packages)} if folder.packages else {}
    interp = make_interp(tools=tools() if folder.sessions else {}, timeout=folder.timeout, **options)
    if folder.in_directory:
        assert interp.execute(f"import os\nos.makedirs({CASE_DIR!r})\nos.chdir({CASE_DIR!r})") is None
    problems = []
    for index, (cell, wanted) in enumerate(zip(case.cells, expected)):
        got = in_sandbox(interp, cell.source, case.variables if index == 0 else None)
        same = comparable(got) == comparable(wanted)
        if cell.differs and same:
            problems.append(f"[{cell.title}] is marked '# differs: {cell.differs}' but now runs as in CPython")
        elif not cell.differs and not same:
            shown = readable_diff("\n".join(map(str, comparable(wanted))), "\n".join(map(str, comparable(got))))
            problems.append(f"[{cell.title}]\n{cell.source}{shown}")
    assert not problems, f"{path.name}:\n\n" + "\n\n".join(problems)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.path.parent.name}/{f.path.name}" for f in FOLDERS])
def test_each_folder_holds_its_cases_and_every_allowed_difference_says_why(folder: Folder):
    cells = [cell for path in case_files(folder) for cell in load(folder, path).cells]
    assert len(cells) >= folder.least_cells, f"{folder.path} has {len(cells)} cells"
    assert all(cell.differs.strip() for cell in cells if cell.differs)
