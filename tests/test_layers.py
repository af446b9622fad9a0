"""The layers of the code, checked from its imports: no file and no folder of `src/` reaches, through its imports,
back to itself, each layer uses only the layers below it (docs/architecture.md), and the same for the package and
the sandbox's own Python:

    memory  <  protocol  <  sandbox  <  worker        (the session process's side)
    memory  <  protocol  <  host                      (the user's process's side)

and inside the sandbox:

    vm  <  library, bridge, rewrite, zygote_data  <  prepare.rs

A Rust file's imports are every path it names, read as text: `crate::`, `super::` (repeated) and `self::` paths,
with their `{...}` groups, and bare paths that start with a module the file declares (`mod x;` then `x::f()`).
A path is resolved to the file that defines its deepest module found on disk, so `crate::sandbox::bridge::tools::install`
is `src/sandbox/bridge/tools.rs`. A file's unit tests (a `mod tests` at its end) are left out; `mod x;` declarations
are not imports. Python: `from .x import` / `from . import x` in the package; `import _sandbox_x` / `from _sandbox_x
import` among the sandbox's own Python modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = ROOT / "dspy_rust_interpreter"
SANDBOX_PYTHON = [SRC / "sandbox" / "machinery", SRC / "sandbox" / "library" / "stand_ins"]

# What each part of src/ may use besides itself, by its path under src/ (the longest match decides).
ALLOWED = {
    "memory": set(),
    "protocol": {"memory"},
    "sandbox": {"memory", "protocol"},
    "sandbox/vm": {"memory", "protocol"},
    "sandbox/library": {"memory", "protocol", "sandbox/vm"},
    "sandbox/bridge": {"memory", "protocol", "sandbox/vm"},
    "sandbox/cpython": {"memory", "protocol", "sandbox/vm"},
    "sandbox/rewrite": {"memory", "protocol", "sandbox/vm"},
    "sandbox/zygote_data": {"memory", "protocol", "sandbox/vm"},
    "sandbox/prepare.rs": {"memory", "protocol", "sandbox"},
    "worker": {"memory", "protocol", "sandbox"},
    "host": {"memory", "protocol"},
    "lib.rs": {"memory", "protocol", "sandbox", "worker", "host"},
}

PATH = re.compile(r"(?<![\w:])((?:crate|self|super)(?:::super)*|[a-z_][a-z0-9_]*)((?:::\w+)+)(::\{[^}]*\})?")
DECLARED = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.MULTILINE)


def module_file(parts: list[str]) -> Path | None:
    """The file defining the module at `parts` (relative to src/), or None."""
    base = SRC.joinpath(*parts)
    for candidate in (base.with_suffix(".rs"), base / "mod.rs"):
        if candidate.is_file():
            return candidate
    return None


def module_parts(file: Path) -> list[str]:
    parts = list(file.relative_to(SRC).with_suffix("").parts)
    return parts[:-1] if parts[-1] in ("mod", "lib") else parts


def resolve(start: list[str], segments: list[str]) -> Path | None:
    """The deepest existing module along `start + segments`."""
    found = module_file(start) if start else SRC / "lib.rs"
    parts = list(start)
    for segment in segments:
        parts.append(segment)
        file = module_file(parts)
        if file is None:
            break
        found = file
    return found


def product_text(file: Path) -> str:
    """The file's code without its unit tests (a `mod tests` at its end may build a whole VM) and comments."""
    text = file.read_text().split("#[cfg(test)]\nmod tests", 1)[0]
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def rust_imports(file: Path) -> set[Path]:
    text = product_text(file)
    here = module_parts(file)
    children = set(DECLARED.findall(text))
    found = set()
    for match in PATH.finditer(text):
        anchor, path, group = match.groups()
        segments = path.split("::")[1:]
        if anchor == "crate":
            start = []
        elif anchor.startswith("super"):
            start = here[: len(here) - anchor.count("super")]
        elif anchor == "self":
            start = here
        elif anchor in children:
            start, segments = here, [anchor, *segments]
        else:
            continue
        tails = [[]]
        if group:
            tails = [[part for part in item.strip().split("::") if part] for item in group[3:-1].split(",")]
            tails = [tail for tail in tails if tail and tail != ["self"]] or [[]]
        for tail in tails:
            target = resolve(start, segments + tail)
            if target is not None and target != file:
                found.add(target)
    return found


def python_imports(file: Path) -> set[Path]:
    found = set()
    for node in ast.walk(ast.parse(file.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [alias.name for alias in node.names]
            for name in names:
                target = PACKAGE / f"{name.split('.')[0]}.py"
                if target.is_file() and target != file:
                    found.add(target)
    return found


def sandbox_python_imports(file: Path, modules: dict[str, Path]) -> set[Path]:
    found = set()
    for node in ast.walk(ast.parse(file.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            target = modules.get(name)
            if target is not None and target != file:
                found.add(target)
    return found


def sandbox_python_graph() -> dict[Path, set[Path]]:
    files = [file for folder in SANDBOX_PYTHON for file in folder.glob("*.py")]
    modules = {file.stem: file for file in files}
    return {file: sandbox_python_imports(file, modules) for file in files}


def circles(graph: dict[Path, set[Path]]) -> list[list[str]]:
    """Strongly connected groups of more than one node (Tarjan's algorithm)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    groups = []

    def visit(node: Path) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(str(member.relative_to(ROOT)) for member in group))

    for node in list(graph):
        if node not in index:
            visit(node)
    return groups


def rust_graph() -> dict[Path, set[Path]]:
    return {file: rust_imports(file) for file in SRC.rglob("*.rs")}


def folder_graphs(graph: dict[Path, set[Path]]) -> list[dict[Path, set[Path]]]:
    """For each folder of src/, its files and subfolders as nodes and the imports among them as edges: a circle
    there is one between folders (a folder that uses a sibling that uses it back) even where no file circles."""
    graphs = []
    for folder in [SRC, *(path for path in SRC.rglob("*") if path.is_dir())]:

        def node(file: Path, folder: Path = folder) -> Path | None:
            try:
                relative = file.relative_to(folder)
            except ValueError:
                return None
            return folder / relative.parts[0]

        edges: dict[Path, set[Path]] = {}
        for file, targets in graph.items():
            source = node(file)
            if source is None:
                continue
            for target in targets:
                used = node(target)
                if used is not None and used != source:
                    edges.setdefault(source, set()).add(used)
        graphs.append(edges)
    return graphs


def layer(file: Path) -> str:
    relative = str(file.relative_to(SRC))
    return max((name for name in ALLOWED if relative == name or relative.startswith(name + "/")), key=len)


def test_the_reader_sees_imports_of_every_form():
    graph = rust_graph()
    sandbox = SRC / "sandbox"
    assert SRC / "protocol" / "value.rs" in graph[SRC / "protocol" / "message.rs"]  # super::value::...
    assert sandbox / "vm" / "namespace.rs" in graph[sandbox / "bridge" / "finish.rs"]  # crate::sandbox::vm::namespace::...
    assert sandbox / "bridge" / "tools.rs" in graph[SRC / "worker" / "run.rs"]  # crate::sandbox::bridge::{output, tools}
    assert sandbox / "library" / "builtins" / "sum.rs" in graph[sandbox / "library" / "builtins" / "mod.rs"]  # sum::sum
    assert PACKAGE / "_errors.py" in python_imports(PACKAGE / "_interpreter.py")
    machinery = SRC / "sandbox" / "machinery"
    assert machinery / "_sandbox_files.py" in sandbox_python_graph()[machinery / "_sandbox_files_io.py"]
    # A made-up circle is found, and one between folders.
    a, b, c = (SRC / name for name in ("a.rs", "b.rs", "c.rs"))
    assert circles({a: {b}, b: {c}, c: {a}}) == [["src/a.rs", "src/b.rs", "src/c.rs"]]
    x, y = SRC / "x", SRC / "y"
    folders = folder_graphs({x / "one.rs": {y / "two.rs"}, y / "three.rs": {x / "four.rs"}})
    assert [["src/x", "src/y"]] in [circles(edges) for edges in folders]


def test_no_file_of_src_imports_itself_through_others():
    assert circles(rust_graph()) == []


def test_no_folder_of_src_uses_itself_through_others():
    found = [group for edges in folder_graphs(rust_graph()) for group in circles(edges)]
    assert found == []


def test_no_module_of_the_package_imports_itself_through_others():
    graph = {file: python_imports(file) for file in PACKAGE.glob("*.py")}
    assert circles(graph) == []


def test_no_module_of_the_sandboxs_own_python_imports_itself_through_others():
    assert circles(sandbox_python_graph()) == []


def test_each_layer_uses_only_the_layers_below_it():
    wrong = []
    for file, targets in rust_graph().items():
        own = layer(file)
        for target in targets:
            used = layer(target)
            if used != own and not any(used == allowed or used.startswith(allowed + "/") for allowed in ALLOWED[own]):
                wrong.append(f"{file.relative_to(ROOT)} uses {target.relative_to(ROOT)}")
    assert sorted(wrong) == []
