#!/usr/bin/env python
"""dspy.RLM over several documents at once: dspy.Parallel threads, interpreters from an InterpreterPool.

The script generates a few small synthetic service logs, each with its own planted facts (which service
logged the most errors, an incident ID, who started a database failover), and runs one dspy.RLM per log
under ``dspy.Parallel``. Every RLM run gets its interpreter from ``InterpreterPool`` through
``interpreter_factory=pool.factory``: the sandboxes are built ahead of time, at most ``size`` are out at
once, and RLM's ``shutdown()`` at the end of each run gives its interpreter back (the pool then builds a
fresh one; nothing of one run can reach another).

Run it:

    python examples/rlm_parallel.py

By default the "model" is scripted (offline, deterministic): it plays back the code a model would write,
the same code for every document, and every value in each answer is computed by that run's interpreter from
its own document, so a mix-up between threads or interpreters would show as a wrong answer. The script
checks each answer against its document's planted facts and exits non-zero on any mismatch. To use a real
model, configure one through the environment (any model string ``dspy.LM`` accepts, with that provider's
usual API key variable):

    DSPY_LM=openai/gpt-4o-mini python examples/rlm_parallel.py
    DSPY_LM=openai/gpt-4o DSPY_SUB_LM=openai/gpt-4o-mini python examples/rlm_parallel.py

Other environment variables:

    EXAMPLE_TASKS        number of documents (default 8).
    EXAMPLE_THREADS      dspy.Parallel threads (default 4).
    EXAMPLE_POOL_SIZE    InterpreterPool size (default: twice the threads; see below).

What a checkout waits for: the pool holds at most ``size`` sandboxes, out or ready, and builds the replacement
for a returned one only once it is back. With a pool exactly as big as the thread count, a thread that
finishes a task and starts the next finds no ready spare and waits for that build (tens of milliseconds);
with spares (a bigger pool), checkouts take well under a millisecond once the pool has warmed up. With a
pool smaller than the thread count, runs also wait for another run to give its interpreter back. A model
may also build a dspy sub-agent in the REPL (``dspy.RLM(...)`` inside the sandbox): that takes a second
interpreter from the same factory while the run holds its first, so leave room for it in the pool, and keep a
``checkout_timeout`` so that the worst case is an error rather than threads waiting on each other forever.
"""

from __future__ import annotations

import logging
import os
import random
import re
import statistics
import sys
import threading
import time
from contextlib import ExitStack
from typing import Any

import dspy
from dspy.utils.dummies import DummyLM

# The same task as rlm_long_document.py (its signature, question and closing steps), on many documents at once.
from rlm_long_document import QUESTION, SERVICES, SIGNATURE, step
from rlm_long_document import SCRIPTED_STEPS as SINGLE_DOCUMENT_STEPS

from dspy_rust_interpreter import InterpreterPool, PoolExhaustedError

ANSWER_FIELDS = ("top_error_service", "error_count", "incident_id", "initiated_by")
ENGINEERS = [
    "Mira Okafor",
    "Tomás Reyes",
    "Ana Lindqvist",
    "Kofi Mensah",
    "Priya Raman",
    "Jonas Berg",
    "Leila Haddad",
    "Sven Kowalski",
]
HOSTS = [f"node-{i:02d}" for i in range(1, 9)]
MESSAGES = {
    "INFO": ["request served", "cache hit", "cache miss", "session refreshed"],
    "WARN": ["slow upstream response", "retrying request", "queue depth high"],
    "ERROR": ["upstream timeout", "payment declined by processor", "connection reset", "invalid token"],
}


# ---------------------------------------------------------------------------------------------- the documents


def build_document(index: int, lines_wanted: int = 1500) -> tuple[str, dict[str, Any]]:
    """Document ``index``: a deterministic log with its own planted facts, and the ground truth for it."""
    rng = random.Random(1000 + index)
    # Each document favours a different service for errors, so the answers differ between documents.
    noisy = SERVICES[index % len(SERVICES)]
    planted = {"incident_id": f"INC-{rng.randint(10000, 99999)}", "initiated_by": ENGINEERS[index % len(ENGINEERS)]}
    failover_at, resolved_at = int(lines_wanted * rng.uniform(0.2, 0.5)), int(lines_wanted * rng.uniform(0.6, 0.9))
    lines: list[str] = []
    for n in range(lines_wanted):
        stamp = f"2024-06-{1 + index:02d}T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"
        if n == failover_at:
            lines.append(
                f"{stamp} node-03 postgres CRITICAL db-primary failover initiated by on-call engineer "
                f"{planted['initiated_by']}; opened incident {planted['incident_id']}"
            )
            continue
        if n == resolved_at:
            lines.append(f"{stamp} node-03 postgres INFO incident {planted['incident_id']} resolved; primary healthy")
            continue
        level = rng.choices(["INFO", "WARN", "ERROR"], weights=[80, 10, 10])[0]
        service = noisy if level == "ERROR" and rng.random() < 0.4 else rng.choice(SERVICES)
        lines.append(f"{stamp} {rng.choice(HOSTS)} {service} {level} {rng.choice(MESSAGES[level])}")

    # Ground truth, computed on the host for the final check.
    errors: dict[str, int] = {}
    for line in lines:
        parts = line.split(" ", 4)
        if parts[3] == "ERROR":
            errors[parts[2]] = errors.get(parts[2], 0) + 1
    ranked = sorted(errors.items(), key=lambda kv: -kv[1])
    # A tie would make "the" top service ambiguous; the seeds are fixed, so this only guards edits to them.
    assert ranked[0][1] > ranked[1][1], f"document {index}: tie for the most errors {ranked[:2]}"
    truth = dict(planted, top_error_service=ranked[0][0], error_count=ranked[0][1])
    return "\n".join(lines), truth


# ----------------------------------------------------------------------------------------- scripted models


# The code a capable model writes for this task, one REPL turn at a time. The same code serves every
# document: the values come from the `document` variable of the interpreter it runs in.
SCRIPTED_STEPS = [
    step(
        "Lines look like '<time> <host> <service> <LEVEL> <message...>'. Count ERROR lines per service in code, "
        "and find the incident lines.",
        """
import re
from collections import Counter

lines = document.splitlines()
errors = Counter()
for line in lines:
    parts = line.split(" ", 4)
    if len(parts) > 3 and parts[3] == "ERROR":
        errors[parts[2]] += 1
incident_lines = [line for line in lines if re.search(r"\\bINC-\\d+", line)]
print(len(lines), "lines; errors:", errors.most_common(3))
print("\\n".join(incident_lines))
""",
    ),
    # Then, as for a single document: ask the sub-LM who initiated the failover, and submit.
    *SINGLE_DOCUMENT_STEPS[-2:],
]


def scripted_lm() -> DummyLM:
    """The scripted main model, one instance shared by every thread.

    DummyLM's list mode plays answers back in call order, from one iterator: under dspy.Parallel the threads
    would take each other's steps. Its dict mode answers by a key found in the prompt instead, and RLM's
    prompt says which turn it is ("[[ ## iteration ## ]]" then "2/4"), so each thread gets the step for its
    own turn whatever the scheduling.
    """
    turns = len(SCRIPTED_STEPS) + 1
    return DummyLM({f"[[ ## iteration ## ]]\n{n}/{turns}": step for n, step in enumerate(SCRIPTED_STEPS, 1)})


class ScriptedSubLM:
    """Offline stand-in for the sub-LM behind ``llm_query``: 'reads' a name after 'engineer'.

    It answers from the prompt alone, so it needs no per-thread state. RLM accepts any callable that returns a
    non-empty list of strings as ``sub_lm``.
    """

    def __call__(self, prompt: str, **kwargs: Any) -> list[str]:
        match = re.search(r"engineer ([A-Z]\w+ [A-Z]\w+)", prompt)
        return [match.group(1) if match else "unknown"]


# ------------------------------------------------------------------------------------------------- plumbing


class CheckoutLog:
    """``pool.factory`` plus a note of each checkout (thread, wait), for the summary only.

    An application passes ``interpreter_factory=pool.factory`` and is done; this wrapper just watches it.
    RLM calls the factory on the thread that runs the task, so the thread name here is the task's.
    """

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        # RLM reads the factory's execution_instructions (if any) into the model's prompt: pass them on.
        self.execution_instructions = getattr(factory, "execution_instructions", "")
        self._lock = threading.Lock()
        self.waits: list[float] = []
        self.threads: set[str] = set()
        self.interpreters: list[Any] = []

    def __call__(self) -> Any:
        started = time.perf_counter()
        interpreter = self._factory()
        waited = time.perf_counter() - started
        with self._lock:
            self.waits.append(waited)
            self.threads.add(threading.current_thread().name)
            self.interpreters.append(interpreter)
        return interpreter


def all_returned(pool: InterpreterPool) -> bool:
    """True when every slot of the pool is free again, i.e. RLM gave back (shut down) every interpreter.

    A slot still held would make one of these ``size`` checkouts fail at once instead of waiting.
    """
    try:
        with ExitStack() as held:
            for _ in range(pool.size):
                held.enter_context(pool.interpreter(timeout=0))
    except PoolExhaustedError:
        return False
    return True


def _one_line(text: str, width: int = 160) -> str:
    text = " | ".join(part.strip() for part in text.splitlines() if part.strip())
    return text if len(text) <= width else text[: width - 3] + "..."


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def configure_models() -> tuple[Any, Any, int, str]:
    """The main LM, the sub-LM, max_iters and a label: a real model from DSPY_LM, else the scripted ones."""
    model_name = os.environ.get("DSPY_LM", "").strip()
    if not model_name:
        label = "scripted (offline; set DSPY_LM=provider/model for a real model)"
        return scripted_lm(), ScriptedSubLM(), len(SCRIPTED_STEPS) + 1, label
    sub_model = os.environ.get("DSPY_SUB_LM", "").strip()
    sub_lm = dspy.LM(sub_model) if sub_model else None
    return dspy.LM(model_name), sub_lm, 15, model_name + (f" (sub-LM {sub_model})" if sub_model else "")


def run_tasks(
    pool: InterpreterPool, documents: list[str], lm: Any, sub_lm: Any, max_iters: int, threads: int
) -> tuple[list[Any], float, CheckoutLog]:
    """One dspy.RLM run per document, ``threads`` at a time, each on an interpreter from ``pool``."""
    checkouts = CheckoutLog(pool.factory)
    # One RLM module for every task: its per-run state (interpreter, tools, history, LLM-call budget) lives in
    # forward(), so concurrent calls share nothing but the module's configuration.
    # `checkouts` is pool.factory, watched for the summary: interpreter_factory=pool.factory is all it takes.
    rlm = dspy.RLM(SIGNATURE, interpreter_factory=checkouts, sub_lm=sub_lm, max_iters=max_iters, max_llm_calls=20)
    examples = [dspy.Example(document=document, question=QUESTION).with_inputs("document", "question") for document in documents]
    # max_errors above the task count: a failed task does not cancel the others. Parallel returns it as None,
    # and with return_failed_examples also returns its exception, which is shown with the answers.
    parallel = dspy.Parallel(
        num_threads=threads, max_errors=len(documents) + 1, return_failed_examples=True, disable_progress_bar=True
    )
    started = time.perf_counter()
    # Parallel hands the settings of this dspy.context (the lm) to each of its threads.
    with dspy.context(lm=lm):
        predictions, failed, exceptions = parallel([(rlm, example) for example in examples])
    elapsed = time.perf_counter() - started
    for example, exception in zip(failed, exceptions):
        index = next(i for i, candidate in enumerate(examples) if candidate is example)
        predictions[index] = exception
    return predictions, elapsed, checkouts


def check_answers(predictions: list[Any], documents: list[tuple[str, dict[str, Any]]]) -> tuple[int, int]:
    """Print each task's answer against its document's planted facts; return how many match, how many failed."""
    matched = failed = 0
    for index, (prediction, (document, truth)) in enumerate(zip(predictions, documents)):
        expected = {field: truth[field] for field in ANSWER_FIELDS}
        if isinstance(prediction, dspy.Prediction):
            got = {field: getattr(prediction, field, None) for field in ANSWER_FIELDS}
            shown = ", ".join(repr(got[field]) for field in ANSWER_FIELDS)
        else:
            got, shown = None, f"failed: {_one_line(repr(prediction))}"
            failed += 1
        matched += got == expected
        verdict = "ok" if got == expected else "FAILED" if got is None else f"MISMATCH, expected {expected}"
        print(f"  task {index}: {len(document):,} chars -> {shown}  {verdict}")
    return matched, failed


def main() -> int:
    task_count = int(os.environ.get("EXAMPLE_TASKS", "8"))
    threads = int(os.environ.get("EXAMPLE_THREADS", "4"))
    pool_size = int(os.environ.get("EXAMPLE_POOL_SIZE", "") or 2 * threads)
    real_model = bool(os.environ.get("DSPY_LM", "").strip())
    lm, sub_lm, max_iters, lm_label = configure_models()
    # Parallel logs each failed task together with its whole input (here a document of ~85,000 characters);
    # the failures are shown with the answers below instead.
    logging.getLogger("dspy.utils.parallelizer").setLevel(logging.CRITICAL)

    # The pool starts building its sandboxes in the background at once, while the documents are made, as it
    # would during an application's start-up. checkout_timeout: an interpreter never given back shows as
    # PoolExhaustedError rather than a hang; timeout (a RustInterpreter option) bounds each execute.
    with InterpreterPool(size=pool_size, checkout_timeout=60.0, timeout=30.0) as pool:
        documents = [build_document(index) for index in range(task_count)]
        predictions, elapsed, checkouts = run_tasks(pool, [document for document, _ in documents], lm, sub_lm, max_iters, threads)
        returned = all_returned(pool)

    print(f"lm          : {lm_label}")
    print(f"question    : {QUESTION}")
    print("answers     :")
    matched, failed = check_answers(predictions, documents)
    waits = checkouts.waits or [0.0]
    print(f"tasks       : {task_count}, run on {len(checkouts.threads)} of {threads} dspy.Parallel threads")
    print(f"wall time   : {elapsed:.2f} s")
    print(f"pool        : size {pool_size}, checkout_timeout 60 s")
    print(
        f"checkouts   : {len(checkouts.waits)} through pool.factory, {len(set(map(id, checkouts.interpreters)))} "
        f"distinct interpreters; wait median {_ms(statistics.median(waits))}, max {_ms(max(waits))}"
    )
    print(f"returned    : {'all (RLM shut each interpreter down)' if returned else 'NOT ALL: a pool slot is still held'}")
    print(f"check       : {matched}/{task_count} answers match their documents' planted facts")
    # A real model may legitimately phrase things differently; only the scripted run must be exact. A run that
    # failed outright, or an interpreter not given back, is an error either way.
    return 0 if returned and not failed and (matched == task_count or real_model) else 2


if __name__ == "__main__":
    sys.exit(main())
