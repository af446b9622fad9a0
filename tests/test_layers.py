"""The layers of the code, checked from its imports: no file of `src/` or of the package reaches, through its
imports, back to itself, and each layer of `src/` uses only the layers below it (docs/architecture.md):

    memory  <  protocol  <  sandbox  <  worker        (the session process's side)
    memory  <  protocol  <  host                      (the user's process's side)

A file's imports are read as text: `crate::a::b` paths (with `{...}` groups), `super::` and `self::` paths in Rust;
`from .x import` / `from . import x` in the package. A Rust file's unit tests are left out. A path is resolved to the file that defines its last
module segment found on disk, so `crate::sandbox::tools::install` is `src/sandbox/tools.rs` and
`crate::sandbox::imported_module` is `src/sandbox/mod.rs`. `mod x;` declarations are not imports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = ROOT / "dspy_rust_interpreter"

# What each top-level part of src/ may use besides itself.
ALLOWED = {
    "memory": set(),
    "protocol": {"memory"},
    "sandbox": {"memory", "protocol"},
    "worker": {"memory", "protocol", "sandbox"},
    "host": {"memory", "protocol"},
    "lib.rs": {"memory", "protocol", "sandbox", "worker", "host"},
}

PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)(::\{[^}]*\})?")


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


def rust_imports(file: Path) -> set[Path]:
    """What the product code of `file` imports (its unit tests, a `mod tests` at its end, may build a whole VM)."""
    text = file.read_text().split("#[cfg(test)]\nmod tests", 1)[0]
    text = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    here = module_parts(file)
    found = set()
    for match in PATH.finditer(text):
        anchor, path, group = match.groups()
        segments = path.split("::")[1:]
        start = [] if anchor == "crate" else here[:-1] if anchor == "super" else here
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


def circles(graph: dict[Path, set[Path]]) -> list[list[str]]:
    """Strongly connected groups of more than one file (Tarjan's algorithm)."""
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


def test_the_reader_sees_imports_of_every_form():
    graph = rust_graph()
    assert SRC / "protocol" / "value.rs" in graph[SRC / "protocol" / "message.rs"]  # super::value::...
    assert SRC / "sandbox" / "state.rs" in graph[SRC / "sandbox" / "files.rs"]  # crate::sandbox::state::...
    assert SRC / "sandbox" / "tools.rs" in graph[SRC / "worker" / "run.rs"]  # crate::sandbox::{output, tools}
    assert PACKAGE / "_errors.py" in python_imports(PACKAGE / "_interpreter.py")
    # A made-up circle is found.
    a, b, c = (SRC / name for name in ("a.rs", "b.rs", "c.rs"))
    assert circles({a: {b}, b: {c}, c: {a}}) == [["src/a.rs", "src/b.rs", "src/c.rs"]]


def test_no_file_of_src_imports_itself_through_others():
    assert circles(rust_graph()) == []


def test_no_module_of_the_package_imports_itself_through_others():
    graph = {file: python_imports(file) for file in PACKAGE.glob("*.py")}
    assert circles(graph) == []


def test_each_layer_uses_only_the_layers_below_it():
    wrong = []
    for file, targets in rust_graph().items():
        layer = file.relative_to(SRC).parts[0]
        for target in targets:
            used = target.relative_to(SRC).parts[0]
            if used != layer and used not in ALLOWED[layer]:
                wrong.append(f"{file.relative_to(ROOT)} uses {target.relative_to(ROOT)}")
    assert sorted(wrong) == []
