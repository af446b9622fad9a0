#!/usr/bin/env python
"""A dspy.Evaluate-style run of an RLM program over many examples on Ray, each worker with its own pool.

The examples are the synthetic service logs of ``rlm_parallel.py`` (each with its own planted facts and the
ground truth for them). They are split into batches; Ray actors (one per worker) each hold an
``InterpreterPool`` built from a picklable configuration (``RustInterpreter.configured(...)``'s options and a
pool size) and run dspy.RLM over their batch. Only plain data crosses between the driver and the workers: the
examples as dicts of str, and per example the answer fields, an error text or None, and seconds. A batch whose
worker dies (a crashed process, a lost node) is run again on a fresh worker; the summary counts them.

Run it:

    python examples/ray_evaluate.py                       # a local Ray with 2 CPUs, 2 workers
    RAY_ADDRESS=ray://head:10001 python examples/ray_evaluate.py   # an existing cluster, unchanged

The model is scripted (offline, deterministic) unless ``DSPY_LM`` names one (``DSPY_SUB_LM`` for
``llm_query``), as in the other examples. Every answer is checked against its document; the exit status is
non-zero on any mismatch or unrecovered failure.

Environment variables: ``EXAMPLE_EXAMPLES`` (default 96), ``EXAMPLE_WORKERS`` (default 2),
``EXAMPLE_BATCH`` (examples per batch, default 2), ``EXAMPLE_POOL_SIZE`` (interpreters per worker, default 2),
``EXAMPLE_LINES`` (lines per document, default 6000), ``EXAMPLE_COMPARE=1`` (also run with one worker and
print the throughput ratio).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rlm_long_document import QUESTION, SIGNATURE  # noqa: E402
from rlm_parallel import ANSWER_FIELDS, SCRIPTED_STEPS, ScriptedSubLM, build_document, scripted_lm  # noqa: E402


@dataclass
class WorkerConfig:
    """Everything a worker needs to build its pool and its program: plain, picklable data."""

    pool_size: int = 2
    interpreter_options: dict[str, Any] = field(default_factory=lambda: {"timeout": 60.0})
    lm: str | None = None
    sub_lm: str | None = None


@ray.remote
class Evaluator:
    """One worker: an InterpreterPool and an RLM program, evaluating the batches it is given."""

    def __init__(self, config: WorkerConfig) -> None:
        import dspy

        from dspy_rust_interpreter import InterpreterPool

        self.pool = InterpreterPool(size=config.pool_size, **config.interpreter_options)
        if config.lm:
            self.lm, sub_lm, max_iters = dspy.LM(config.lm), dspy.LM(config.sub_lm) if config.sub_lm else None, 15
        else:
            # The scripted model answers by turn number, which RLM's prompt gives as "n/max_iters".
            self.lm, sub_lm, max_iters = scripted_lm(), ScriptedSubLM(), len(SCRIPTED_STEPS) + 1
        self.program = dspy.RLM(
            SIGNATURE, interpreter_factory=self.pool.factory, sub_lm=sub_lm, max_iters=max_iters, max_llm_calls=20
        )

    def pid(self) -> int:
        return os.getpid()

    def evaluate(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        import dspy

        results = []
        for example in batch:
            started = time.perf_counter()
            try:
                with dspy.context(lm=self.lm):
                    prediction = self.program(document=example["document"], question=example["question"])
                answer, error = {name: getattr(prediction, name) for name in ANSWER_FIELDS}, None
            except Exception as exc:  # noqa: BLE001 - one example's failure is a result, not the worker's end
                answer, error = None, f"{type(exc).__name__}: {exc}"
            results.append(
                {"index": example["index"], "answer": answer, "error": error, "seconds": time.perf_counter() - started}
            )
        return results

    def shutdown(self) -> None:
        self.pool.close()


@dataclass
class Run:
    results: dict[int, dict[str, Any]]
    seconds: float
    workers: int
    retried_batches: int = 0
    lost_workers: int = 0

    @property
    def per_second(self) -> float:
        return len(self.results) / self.seconds


def make_examples(count: int, lines: int) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """The examples as plain dicts, and the ground truth per example index."""
    examples, truths = [], {}
    for index in range(count):
        document, truth = build_document(index, lines_wanted=lines)
        examples.append({"index": index, "document": document, "question": QUESTION})
        truths[index] = truth
    return examples, truths


def evaluate(
    examples: list[dict[str, Any]],
    config: WorkerConfig,
    workers: int,
    batch_size: int,
    on_batch_done: Callable[[list[Any], int], None] | None = None,
) -> Run:
    """Run every example on ``workers`` actors. A batch whose actor dies is queued again and the actor
    replaced. ``on_batch_done(actors, batches_done)`` is called after each finished batch (the tests use it
    to kill a worker mid-run)."""
    queue = [examples[i : i + batch_size] for i in range(0, len(examples), batch_size)]
    actors = [Evaluator.remote(config) for _ in range(workers)]
    ray.get([actor.pid.remote() for actor in actors])  # every worker is up before the clock starts
    idle = list(actors)
    running: dict[Any, tuple[Any, list[dict[str, Any]]]] = {}
    run = Run(results={}, seconds=0.0, workers=workers)
    started = time.perf_counter()
    batches_done = 0
    while queue or running:
        while idle and queue:
            actor, batch = idle.pop(), queue.pop(0)
            running[actor.evaluate.remote(batch)] = (actor, batch)
        [done], _ = ray.wait(list(running), num_returns=1)
        actor, batch = running.pop(done)
        try:
            for result in ray.get(done):
                run.results[result["index"]] = result
        except ray.exceptions.RayActorError:
            # The worker is gone with whatever it was doing: its batch runs again on a new worker.
            run.lost_workers += 1
            run.retried_batches += 1
            queue.insert(0, batch)
            actors[actors.index(actor)] = actor = Evaluator.remote(config)
        idle.append(actor)
        batches_done += 1
        if on_batch_done is not None:
            on_batch_done(actors, batches_done)
    run.seconds = time.perf_counter() - started
    for actor in actors:
        try:
            ray.get(actor.shutdown.remote())
        except ray.exceptions.RayActorError:
            pass
        ray.kill(actor)
    return run


def check(run: Run, truths: dict[int, dict[str, Any]]) -> list[str]:
    """Every example answered, and each answer equal to its document's facts: the problems, if any."""
    problems = []
    for index, truth in truths.items():
        result = run.results.get(index)
        if result is None:
            problems.append(f"example {index}: no result")
        elif result["error"]:
            problems.append(f"example {index}: {result['error']}")
        elif result["answer"] != {name: truth[name] for name in ANSWER_FIELDS}:
            problems.append(f"example {index}: got {result['answer']}, expected {truth}")
    return problems


def summary(run: Run) -> str:
    per_worker = run.per_second / run.workers
    return (
        f"{len(run.results)} examples on {run.workers} worker(s) in {run.seconds:.2f} s: "
        f"{run.per_second:.2f} examples/s, {per_worker:.2f} per worker; "
        f"{run.lost_workers} worker(s) lost, {run.retried_batches} batch(es) retried"
    )


def main() -> int:
    count = int(os.environ.get("EXAMPLE_EXAMPLES", "96"))
    workers = int(os.environ.get("EXAMPLE_WORKERS", "2"))
    batch_size = int(os.environ.get("EXAMPLE_BATCH", "2"))
    lines = int(os.environ.get("EXAMPLE_LINES", "6000"))
    config = WorkerConfig(
        pool_size=int(os.environ.get("EXAMPLE_POOL_SIZE", "2")),
        lm=os.environ.get("DSPY_LM"),
        sub_lm=os.environ.get("DSPY_SUB_LM"),
    )
    # RAY_ADDRESS (if set) is an existing cluster, which ray.init() joins by itself; else a local Ray.
    ray.init(
        **({} if os.environ.get("RAY_ADDRESS") else {"num_cpus": workers}),
        runtime_env={"working_dir": str(HERE)},
        logging_level="ERROR",
    )
    examples, truths = make_examples(count, lines)
    runs = []
    if os.environ.get("EXAMPLE_COMPARE") == "1" and workers > 1:
        runs.append(evaluate(examples, config, 1, batch_size))
    runs.append(evaluate(examples, config, workers, batch_size))
    failed = False
    for run in runs:
        print(summary(run))
        problems = check(run, truths)
        for problem in problems[:10]:
            print("  MISMATCH", problem)
        failed |= bool(problems) and not config.lm  # a real model may phrase answers differently
    if len(runs) == 2:
        print(f"throughput, {workers} workers vs 1: {runs[1].per_second / runs[0].per_second:.2f}x")
    ray.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
