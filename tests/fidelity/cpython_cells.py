"""Cells as the reference CPython runs them, the way the sandbox runs them: a REPL over one namespace.

Run by the reference CPython (not imported by the tests' own Python): it reads a JSON job on stdin and prints
one JSON outcome per cell. A job is ``{"cells": [...], "fresh": bool, "tools": [module paths],
"variables": {...}}``: with ``fresh`` every cell gets a namespace of its own, otherwise cells share one (as an
RLM session's iterations do). Tools are the public functions of the named modules; ``SUBMIT``/``FINAL`` end a
cell the way the sandbox's do. A cell's statements run as a module, then its trailing expression is evaluated
and its repr appended to what was printed (or returned alone when nothing was), top-level ``await`` allowed.

An outcome is ``[kind, text, stdout, stderr]``: kind ``value`` (text: the repr joined to the printed text, as
``execute()`` returns it), ``submit`` (text: the repr of the fields' dict), ``final`` (likewise) or ``error``
(text: ``"Type: message"``); stdout and stderr are what the cell wrote to each.
"""

import ast
import asyncio
import importlib.util
import io
import json
import sys


class _Finished(BaseException):
    def __init__(self, kind, fields):
        super().__init__(kind)
        self.kind = kind
        self.fields = fields


def SUBMIT(*args, **kwargs):
    if args and kwargs or len(args) > 1:
        raise TypeError("SUBMIT takes one positional value or keyword fields")
    raise _Finished("submit", {"output": args[0]} if args else dict(kwargs))


def FINAL(answer):
    raise _Finished("final", {"answer": answer})


def tools_of(paths):
    found = {}
    for index, path in enumerate(paths):
        spec = importlib.util.spec_from_file_location(f"_corpus_tools_{index}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name in getattr(module, "TOOLS", ()):
            found[name] = getattr(module, name)
    return found


def run_cell(source, namespace, loop):
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = ast.Module(body=tree.body[:-1] if last else tree.body, type_ignores=[])
    result = eval(compile(body, "<cell>", "exec", flags=flags), namespace)
    if asyncio.iscoroutine(result):
        loop.run_until_complete(result)
    if last is None:
        return None
    result = eval(compile(ast.Expression(last.value), "<cell>", "eval", flags=flags), namespace)
    return loop.run_until_complete(result) if asyncio.iscoroutine(result) else result


def main():
    job = json.loads(sys.stdin.read())
    base = {"__name__": "__main__", "SUBMIT": SUBMIT, "FINAL": FINAL}
    base.update(tools_of(job.get("tools", [])))
    base.update(job.get("variables", {}))
    shared = dict(base)
    outcomes = []
    for source in job["cells"]:
        namespace = dict(base) if job.get("fresh") else shared
        out, err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = out, err
        loop = asyncio.new_event_loop()
        try:
            value = run_cell(source, namespace, loop)
            text = out.getvalue()
            if value is not None:
                shown = repr(value) if text or not isinstance(value, str) else value
                text = text + ("" if not text or text.endswith("\n") else "\n") + shown if text else shown
            outcome = ["value", text]
        except _Finished as finished:
            outcome = [finished.kind, repr(finished.fields)]
        except BaseException as error:  # noqa: BLE001 - the cell's error is its outcome
            message = str(error)
            outcome = ["error", f"{type(error).__name__}: {message}" if message else type(error).__name__]
        finally:
            loop.close()
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        outcomes.append(outcome + [out.getvalue(), err.getvalue()])
    print(json.dumps(outcomes))


if __name__ == "__main__":
    main()
