"""Write docs/stdlib.md's table of the standard library from the sandbox's own table (src/sandbox/vm/stdlib.rs).

python tools/stdlib_table.py          # rewrite the table in docs/stdlib.md
python tools/stdlib_table.py --check  # exit 1 when docs/stdlib.md is out of date (tests/sandbox/vm/test_stdlib_table.py runs it)
"""

from __future__ import annotations

import sys
from pathlib import Path

from dspy_rust_interpreter import _native

DOC = Path(__file__).resolve().parent.parent / "docs" / "stdlib.md"
BEGIN = "<!-- table: written by tools/stdlib_table.py -->"
END = "<!-- end of table -->"
SOURCES = {"native": "Rust", "python": "CPython's Python", "stand-in": "the sandbox's own"}


def render() -> str:
    rows = _native.stdlib_modules()
    lines = [BEGIN, "", "| module | standing | code | what it works on, or why it is refused |", "|---|---|---|---|"]
    for name, standing, source, note in rows:
        code = SOURCES[source] if source else ""
        lines.append(f"| `{name}` | {standing} | {code} | {note} |")
    counts = {kind: sum(1 for row in rows if row[1] == kind) for kind in ("available", "confined", "refused")}
    lines += ["", ", ".join(f"{count} {kind}" for kind, count in counts.items()) + ".", "", END]
    return "\n".join(lines)


def with_table(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + render() + tail


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    wanted = with_table(text)
    if "--check" in sys.argv:
        if wanted != text:
            print(f"{DOC} is out of date: run python tools/stdlib_table.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
