"""examples/ray_evaluate.py on a local Ray with 2 workers: every answer checked; a worker killed mid-run and the
run still complete (its batch retried on a new worker), with the killed worker's sandboxes gone too."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
import ray

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))

import ray_evaluate  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, runtime_env={"working_dir": str(EXAMPLES)}, logging_level="ERROR", include_dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def examples():
    return ray_evaluate.make_examples(8, lines=1500)


def test_two_workers_answer_every_example_correctly(local_ray, examples):
    items, truths = examples
    run = ray_evaluate.evaluate(items, ray_evaluate.WorkerConfig(pool_size=2), workers=2, batch_size=2)
    assert ray_evaluate.check(run, truths) == []
    assert run.lost_workers == run.retried_batches == 0


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, stack = set(), [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.add(child)
            stack.append(child)
    return found


def test_a_worker_killed_mid_run_loses_nothing_and_leaves_no_sandbox_behind(local_ray, examples):
    items, truths = examples
    killed: dict[str, object] = {}

    def kill_one_worker(actors, batches_done):
        if killed:
            return
        pid = ray.get(actors[0].pid.remote())
        killed["sandboxes"] = _descendants(pid)  # its zygote and session processes
        os.kill(pid, signal.SIGKILL)
        killed["pid"] = pid

    run = ray_evaluate.evaluate(
        items, ray_evaluate.WorkerConfig(pool_size=2), workers=2, batch_size=2, on_batch_done=kill_one_worker
    )
    assert ray_evaluate.check(run, truths) == []
    assert run.lost_workers >= 1 and run.retried_batches >= 1
    assert killed["sandboxes"], "the worker had sandbox processes"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in killed["sandboxes"]):
        time.sleep(0.1)
    assert not [pid for pid in killed["sandboxes"] if Path(f"/proc/{pid}").exists()]
