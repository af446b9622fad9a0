"""Every ```python block of README.md and docs/*.md runs, as written, on the host.

The blocks of one file run in order, in a child process of their own (nothing leaks into this process); the
child's working directory is a temporary folder. Each ``python`` block runs as written, in a fresh namespace, as a
reader who copies it alone runs it; a block that goes on from the one before it says so in its fence,
``python continued``, and runs in that block's namespace. A failure names the file and the line of the block's opening fence, and the traceback
points at the file's own line numbers. Blocks that are not host code (what sandbox code looks like, shell
commands, output) use another fence language: text, console or bash; ``pycon`` transcripts of sandbox code
are replayed in a RustInterpreter holding the file's functions as tools, and must print what they show.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dspy_rust_interpreter

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"python", "python continued", "text", "console", "bash", "pycon"}
FENCE = re.compile(r"^(\s*)```(.*)$")

# Run in the child: read the blocks as JSON from stdin, run each in the one namespace, stop at the first failure.
# A pycon block is a transcript of sandbox code: its `>>>` lines run, in order, in one RustInterpreter whose
# tools are the functions the file's python blocks defined so far, and what each prints (or the repr of its
# value, or its error's first line) must be the transcript's next lines.
RUNNER = r"""
import inspect, json, sys, traceback
from dspy_rust_interpreter import CodeExecutionError, RustInterpreter

def replay(transcript, namespace):
    tools = {name: value for name, value in namespace.items()
             if inspect.isfunction(value) and value.__module__ == "__main__"}
    steps = []
    for line in transcript.splitlines():
        if line.startswith(">>> "):
            steps.append([line[4:], []])
        elif line.startswith("... ") and steps:
            steps[-1][0] += "\n" + line[4:]
        elif steps:
            steps[-1][1].append(line)
    with RustInterpreter(tools=tools) as interp:
        for code, expected in steps:
            try:
                result = interp.execute(code)
                shown = result if isinstance(result, str) and not code.lstrip().startswith(("'", '"')) else repr(result)
                shown = "" if result is None else shown
            except CodeExecutionError as error:
                shown = str(error).split("\n\n")[0]
            if shown.rstrip("\n").splitlines() != [line.rstrip() for line in expected]:
                raise AssertionError(f">>> {code}\nexpected:\n" + "\n".join(expected) + f"\ngot:\n{shown}")

blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for block in blocks:
    try:
        if block["language"] == "python":
            namespace = {"__name__": "__main__"}
        if block["language"] == "pycon":
            replay(block["code"], namespace)
        else:
            # Blank lines before the code, so that a traceback's line numbers are the document's.
            source = "\n" * block["line"] + block["code"]
            exec(compile(source, block["path"], "exec"), namespace)
    except BaseException:
        print(f"FAILED: the block at {block['path']}:{block['line']}", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
    print(f"ran the block at {block['path']}:{block['line']}")
"""


def fenced_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line of the opening fence, language, code) of each fenced block of ``path``, in order."""
    blocks = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, language, opened = opening.group(1), opening.group(2).strip(), index + 1
        body = []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index][len(indent) :] if lines[index].startswith(indent) else lines[index])
            index += 1
        if index == len(lines):
            raise AssertionError(f"{path.name}: the block opened at line {opened} is never closed")
        blocks.append((opened, language, "\n".join(body) + "\n"))
        index += 1
    return blocks


def python_blocks(path: Path) -> list[dict[str, object]]:
    """The blocks of ``path`` that run: python on the host, pycon transcripts in a sandbox."""
    return [
        {"path": str(path.relative_to(ROOT)), "line": line, "code": code, "language": language}
        for line, language, code in fenced_blocks(path)
        if language in ("python", "python continued", "pycon")
    ]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_fence_names_its_language(path):
    unnamed = [f"{path.name}:{line} ```{language}" for line, language, _ in fenced_blocks(path) if language not in LANGUAGES]
    assert not unnamed, f"fences must be one of {sorted(LANGUAGES)} (python blocks are run): {unnamed}"


def test_the_readme_has_python_to_run():
    assert any(block["language"] == "python" for block in python_blocks(ROOT / "README.md"))


@pytest.mark.parametrize(
    "path",
    [path for path in DOCUMENTS if python_blocks(path)],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_python_blocks_run(path, tmp_path):
    blocks = python_blocks(path)
    # The child imports the package under test, whatever is installed, and runs offline (scripted LMs only).
    package_root = str(Path(dspy_rust_interpreter.__file__).resolve().parent.parent)
    env = {key: value for key, value in os.environ.items() if key not in ("DSPY_LM", "DSPY_SUB_LM")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    process = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps([{**block, "path": str(ROOT / str(block["path"]))} for block in blocks]),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    ran = process.stdout.count("ran the block at ")
    assert process.returncode == 0, (
        f"{path.relative_to(ROOT)}: {ran} of {len(blocks)} python blocks ran, then:\n{process.stderr[-6000:]}"
    )
    assert ran == len(blocks), process.stdout


def test_a_block_that_goes_on_from_another_says_so(tmp_path):
    # Issue 53, item 9: a block that needs names an earlier one made failed for a reader who copied it alone
    # (`NameError: RustInterpreter`); each python block now runs in a fresh namespace unless its fence says
    # `python continued`. The runner shows both: a fresh block does not see the last one's names.
    document = tmp_path / "doc.md"
    document.write_text("```python\nx = 1\n```\n\n```python continued\nassert x == 1\n```\n\n```python\nx\n```\n")
    blocks = [
        {**block, "path": str(document)}
        for block in [{"line": line, "code": code, "language": language} for line, language, code in fenced_blocks(document)]
    ]
    process = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(blocks), capture_output=True, text=True, timeout=60)
    assert process.returncode == 1, process.stdout + process.stderr
    assert f"FAILED: the block at {document}:9" in process.stderr and "NameError" in process.stderr, process.stderr
