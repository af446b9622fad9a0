#!/usr/bin/env python
"""dspy.RLM over a long document, executed by dspy_rust_interpreter's RustInterpreter.

The script generates a deterministic synthetic service log of about 1 MB, plants a few facts in it, and asks
dspy.RLM a question whose answer needs both counting over the whole log (done in code, in the interpreter)
and reading a couple of lines (done by the sub-LM through ``llm_query``). The document never goes into the
model's prompt: only metadata about it does, and the model explores it with code.

Run it:

    python examples/rlm_long_document.py

By default the "model" is scripted (offline, deterministic): it plays back the code a model would write, and
every value in the answer is computed by the interpreter from the document. To use a real model, configure one
through the environment (any model string ``dspy.LM`` accepts, with that provider's usual API key variable):

    DSPY_LM=openai/gpt-4o-mini python examples/rlm_long_document.py
    DSPY_LM=openai/gpt-4o DSPY_SUB_LM=openai/gpt-4o-mini python examples/rlm_long_document.py

Other environment variables:

    EXAMPLE_INTERPRETER  module:Class of the interpreter (default dspy_rust_interpreter:RustInterpreter);
                         e.g. dspy.primitives.local_interpreter:LocalInterpreter for dspy's CPython worker.
    EXAMPLE_DOC_MB       approximate document size in megabytes (default 1).
    EXAMPLE_VERBOSE=1    print every trajectory step in full.
"""

from __future__ import annotations

import importlib
import os
import random
import re
import sys
import time
from typing import Any

import dspy
from dspy.utils.dummies import DummyLM

DEFAULT_INTERPRETER = "dspy_rust_interpreter:RustInterpreter"

SIGNATURE = "document: str, question: str -> top_error_service: str, error_count: int, incident_id: str, initiated_by: str"
QUESTION = (
    "Which service logged the most ERROR lines (and how many), what is the incident ID of the database "
    "failover, and who initiated that failover?"
)

SERVICES = ["auth", "billing", "catalog", "checkout", "search", "shipping"]
HOSTS = [f"node-{i:02d}" for i in range(1, 17)]
MESSAGES = {
    "INFO": ["request served", "cache hit", "cache miss", "session refreshed", "health check passed"],
    "WARN": ["slow upstream response", "retrying request", "queue depth high", "certificate expires soon"],
    "ERROR": ["upstream timeout", "payment declined by processor", "connection reset", "invalid token"],
}

# The facts the question is about. Everything else in the log is noise.
PLANTED = {
    "top_error_service": "checkout",
    "incident_id": "INC-48213",
    "initiated_by": "Mira Okafor",
}


# ----------------------------------------------------------------------------------------------- the document


def build_document(target_chars: int, seed: int = 7) -> tuple[str, dict[str, Any]]:
    """A deterministic log of about ``target_chars`` characters, with the PLANTED facts placed in it."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    second = 0
    planted_at = {int(target_chars * 0.37): "failover", int(target_chars * 0.81): "resolved"}
    pending = sorted(planted_at)
    while size < target_chars:
        second += rng.randint(1, 4)
        stamp = f"2024-06-{1 + second // 86400:02d}T{second % 86400 // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}Z"
        level = rng.choices(["INFO", "WARN", "ERROR"], weights=[86, 9, 5])[0]
        # checkout gets a burst of extra errors: it must come out on top by counting, not by luck.
        service = "checkout" if level == "ERROR" and rng.random() < 0.12 else rng.choice(SERVICES)
        line = (
            f"{stamp} {rng.choice(HOSTS)} {service} {level} {rng.choice(MESSAGES[level])} "
            f"request_id={rng.getrandbits(48):012x} latency_ms={rng.randint(2, 900)}"
        )
        if pending and size >= pending[0]:
            kind = planted_at[pending.pop(0)]
            if kind == "failover":
                line = (
                    f"{stamp} node-03 postgres CRITICAL db-primary failover initiated by on-call engineer "
                    f"{PLANTED['initiated_by']}; opened incident {PLANTED['incident_id']} (replica lag 41s)"
                )
            else:
                line = f"{stamp} node-03 postgres INFO incident {PLANTED['incident_id']} resolved; primary healthy"
        lines.append(line)
        size += len(line) + 1
    document = "\n".join(lines)

    # Ground truth computed on the host, for the final check.
    errors: dict[str, int] = {}
    for line in lines:
        parts = line.split(" ", 4)
        if len(parts) > 3 and parts[3] == "ERROR":
            errors[parts[2]] = errors.get(parts[2], 0) + 1
    top = max(errors, key=errors.get)
    truth = dict(PLANTED, top_error_service=top, error_count=errors[top], lines=len(lines))
    return document, truth


# ----------------------------------------------------------------------------------------- scripted models


def step(reasoning: str, code: str) -> dict[str, str]:
    return {"reasoning": reasoning, "code": f"```python\n{code.strip()}\n```"}


# The code a capable model typically writes for this task, one REPL turn at a time.
SCRIPTED_STEPS = [
    step(
        "Explore first: size, line count, and a few sample lines to learn the format.",
        """
lines = document.splitlines()
print(f"{len(document):,} chars, {len(lines):,} lines")
for sample in lines[:3]:
    print(sample)
""",
    ),
    step(
        "Lines look like '<time> <host> <service> <LEVEL> <message...>'. Count ERROR lines per service in code.",
        """
from collections import Counter

errors = Counter()
for line in lines:
    parts = line.split(" ", 4)
    if len(parts) > 3 and parts[3] == "ERROR":
        errors[parts[2]] += 1
print(errors.most_common(3))
""",
    ),
    step(
        "Now find the database failover: look for incident IDs and failover mentions.",
        """
import re

incident_lines = [line for line in lines if re.search(r"\\bINC-\\d+", line)]
print(len(incident_lines), "incident lines")
print("\\n".join(incident_lines))
""",
    ),
    step(
        "Who initiated the failover is a reading question: ask the sub-LM about just those lines.",
        """
failover_line = next(line for line in incident_lines if "failover" in line)
incident_id = re.search(r"INC-\\d+", failover_line).group(0)
initiated_by = llm_query(
    "Who initiated the database failover described in this log line? Reply with the person's name only.\\n\\n"
    + failover_line
).strip()
top_service, top_count = errors.most_common(1)[0]
print(top_service, top_count, incident_id, repr(initiated_by))
""",
    ),
    step(
        "All four values were computed and checked in the previous step; submit them.",
        """
SUBMIT(top_error_service=top_service, error_count=top_count, incident_id=incident_id, initiated_by=initiated_by)
""",
    ),
]


class ScriptedSubLM:
    """Offline stand-in for the sub-LM behind ``llm_query``: 'reads' a name after 'initiated by'.

    RLM accepts any callable that returns a non-empty list of strings as ``sub_lm``.
    """

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, prompt: str, **kwargs: Any) -> list[str]:
        self.calls += 1
        match = re.search(r"initiated by (?:[\w-]+ )*?engineer ([A-Z]\w+ [A-Z]\w+)", prompt)
        return [match.group(1) if match else "unknown"]


# ------------------------------------------------------------------------------------------------- plumbing


def load_interpreter_factory(spec: str) -> Any:
    module_name, sep, attr = spec.partition(":")
    if not sep:
        module_name, _, attr = spec.rpartition(".")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _one_line(text: str, width: int = 96) -> str:
    text = " | ".join(part.strip() for part in str(text).splitlines() if part.strip())
    return text if len(text) <= width else text[: width - 3] + "..."


def main() -> int:
    spec = os.environ.get("EXAMPLE_INTERPRETER", "").strip() or DEFAULT_INTERPRETER
    try:
        factory = load_interpreter_factory(spec)
    except Exception as exc:
        print(f"error: cannot load interpreter {spec!r}: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(
            "hint: build/install dspy_rust_interpreter, or set "
            "EXAMPLE_INTERPRETER=dspy.primitives.local_interpreter:LocalInterpreter",
            file=sys.stderr,
        )
        return 1

    target_chars = int(float(os.environ.get("EXAMPLE_DOC_MB", "1")) * 1_000_000)
    document, truth = build_document(target_chars)

    model_name = os.environ.get("DSPY_LM", "").strip()
    if model_name:
        lm = dspy.LM(model_name)
        sub_model = os.environ.get("DSPY_SUB_LM", "").strip()
        sub_lm = dspy.LM(sub_model) if sub_model else None
        max_iters = 15
        lm_label = model_name + (f" (sub-LM {sub_model})" if sub_model else "")
    else:
        lm = DummyLM(list(SCRIPTED_STEPS))
        sub_lm = ScriptedSubLM()
        max_iters = len(SCRIPTED_STEPS) + 1
        lm_label = "scripted (offline; set DSPY_LM=provider/model for a real model)"

    rlm = dspy.RLM(SIGNATURE, interpreter_factory=factory, sub_lm=sub_lm, max_iters=max_iters, max_llm_calls=20)

    started = time.perf_counter()
    with dspy.context(lm=lm):
        prediction = rlm(document=document, question=QUESTION)
    elapsed = time.perf_counter() - started

    verbose = os.environ.get("EXAMPLE_VERBOSE", "").strip() not in ("", "0")
    print(f"interpreter : {spec}")
    print(f"lm          : {lm_label}")
    print(f"document    : {len(document):,} chars, {truth['lines']:,} log lines")
    print(f"question    : {QUESTION}")
    print("trajectory  :")
    for index, entry in enumerate(prediction.trajectory, 1):
        if verbose:
            print(f"--- step {index}: {entry['reasoning']}\n{entry['code']}\n>>> {entry['output']}")
        else:
            print(f"  {index}. {_one_line(entry['code'], 60):<60} -> {_one_line(entry['output'], 50)}")
    print("answer      :")
    for field in ("top_error_service", "error_count", "incident_id", "initiated_by"):
        print(f"  {field:<18} = {getattr(prediction, field)!r}")
    expected = {k: truth[k] for k in ("top_error_service", "error_count", "incident_id", "initiated_by")}
    got = {k: getattr(prediction, k) for k in expected}
    correct = got == expected
    print(f"steps       : {len(prediction.trajectory)} (max_iters={max_iters})")
    print(f"elapsed     : {elapsed:.2f} s")
    print(f"check       : {'matches the planted facts' if correct else f'MISMATCH, expected {expected}'}")
    # A real model may legitimately phrase things differently; only the scripted run must be exact.
    return 0 if correct or model_name else 2


if __name__ == "__main__":
    sys.exit(main())
