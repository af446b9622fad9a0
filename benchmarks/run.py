"""Benchmark RustInterpreter against its peers, side by side, in one run.

    python benchmarks/run.py [--quick] [--out benchmarks/results] [--impl rust --impl exec ...]

Each implementation runs each workload group in a fresh child process (``workloads.py``), which answers with
JSON on stdout; the startup group runs in several fresh processes, since a cold start happens once per process.
A child that crashes, hangs or cannot import its implementation becomes a reason in the results, never the end
of the run. Writes ``results.json`` and ``chart.png`` into ``--out`` and prints the table.

``--quick`` (CI smoke): RustInterpreter and CPython exec only, few iterations, well under a minute.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from adapters import ADAPTERS  # noqa: E402
from report import write_all  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

FULL_IMPLS = ["rust", "exec", "local", "monty", "pyodide"]
QUICK_IMPLS = ["rust", "exec"]
# Parallel scaling is about RustInterpreter releasing the GIL (exec is the GIL-bound reference); the leak cycle
# is RustInterpreter's own question. Peers get the groups every implementation can be asked.
GROUPS_FOR = {
    "rust": ["startup", "main", "cpu", "memory", "scaling", "text", "leak"],
    "exec": ["startup", "main", "cpu", "memory", "scaling", "text"],
}
DEFAULT_GROUPS = ["startup", "main", "cpu", "memory", "text"]
CHILD_TIMEOUT_S = {"startup": 300, "main": 900, "cpu": 600, "memory": 300, "scaling": 300, "text": 2400, "leak": 900}


def run_child(impl: str, group: str, quick: bool) -> dict[str, Any]:
    """One fresh process for one implementation and one group; its JSON, or the reason there is none."""
    env = dict(os.environ)
    # The repository's own package (and its prebuilt native module) comes before any installed copy.
    env["PYTHONPATH"] = os.pathsep.join([ROOT, *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, os.path.join(HERE, "workloads.py"), "--impl", impl, "--group", group]
    if quick:
        command.append("--quick")
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S[group])
    except subprocess.TimeoutExpired:
        return {"impl": impl, "group": group, "error": f"child timed out after {CHILD_TIMEOUT_S[group]} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])[:400]
        return {"impl": impl, "group": group, "error": f"child exited with status {done.returncode}: {tail}"}
    return json.loads(lines[-1])


def median_of_processes(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Startup figures from several fresh processes: per workload, the median of the processes that got one."""
    merged: dict[str, dict[str, Any]] = {}
    keys = dict.fromkeys(key for run in runs for key in run.get("workloads", {}))
    for key in keys:
        values = [run["workloads"][key]["value"] for run in runs if "value" in run.get("workloads", {}).get(key, {})]
        if values:
            merged[key] = {"value": statistics.median(values), "processes": len(values)}
        else:
            merged[key] = next(run["workloads"][key] for run in runs if key in run.get("workloads", {}))
    return merged


def measure_impl(impl: str, quick: bool, startup_processes: int, only: list[str] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"label": ADAPTERS[impl].label, "skipped": None, "workloads": {}}
    for group in GROUPS_FOR.get(impl, DEFAULT_GROUPS):
        if only and group not in only:
            continue
        repeats = startup_processes if group == "startup" else 1
        runs = []
        for _ in range(repeats):
            started = time.monotonic()
            run = run_child(impl, group, quick)
            log(
                f"  {impl:8} {group:8} {time.monotonic() - started:6.1f} s"
                + (f"  skipped: {run['skipped']}" if run.get("skipped") else "")
                + (f"  error: {run['error']}" if run.get("error") else "")
            )
            runs.append(run)
            if run.get("skipped") or run.get("error"):
                break
        if any(run.get("skipped") for run in runs):
            entry["skipped"] = runs[0]["skipped"]
            return entry  # the implementation cannot run here at all: no point in its other groups
        failed = [run for run in runs if run.get("error")]
        if failed:
            for workload in WORKLOADS:
                if workload.group == group:
                    entry["workloads"][workload.key] = {"error": failed[0]["error"]}
            continue
        entry["workloads"].update(median_of_processes(runs) if group == "startup" else runs[0]["workloads"])
    return entry


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else None
    except OSError:
        return None


def machine_info() -> dict[str, Any]:
    from importlib import metadata

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    versions = {}
    for package in ["dspy", "dspy-monty-interpreter", "pydantic-monty", "deno", "matplotlib"]:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    # This project is measured from the repository (its prebuilt native module), not from an installed copy.
    versions["dspy-rust-interpreter"] = f"repository {git_commit()}"
    try:
        memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        memory_gb = None
    return {
        "cpu_model": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(memory_gb, 1) if memory_gb else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "load_average_at_start": os.getloadavg(),
        "packages": versions,
    }


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI smoke: RustInterpreter and exec, few iterations")
    parser.add_argument("--out", default=os.path.join(HERE, "results"), help="directory for results.json, chart.png")
    parser.add_argument("--impl", action="append", choices=sorted(ADAPTERS), help="measure only these (repeatable)")
    parser.add_argument("--group", action="append", help="measure only these groups (repeatable), e.g. --group cpu")
    parser.add_argument(
        "--startup-processes", type=int, default=None, help="fresh processes for the startup group (default 5, 1 with --quick)"
    )
    args = parser.parse_args()
    impls = args.impl or (QUICK_IMPLS if args.quick else FULL_IMPLS)
    startup_processes = args.startup_processes or (1 if args.quick else 5)

    started = time.monotonic()
    machine = machine_info()
    log(
        f"benchmark on {machine['cpu_model']} ({machine['cores']} cores), Python {machine['python']}"
        f"{', quick' if args.quick else ''}"
    )
    results: dict[str, Any] = {
        "mode": "quick" if args.quick else "full",
        "machine": machine,
        "workloads": [
            {"key": w.key, "group": w.group, "label": w.label, "unit": w.unit}
            for w in WORKLOADS
            if not args.group or w.group in args.group
        ],
        "implementations": {},
    }
    for impl in impls:
        results["implementations"][impl] = measure_impl(impl, args.quick, startup_processes, args.group)
    machine["load_average_at_end"] = os.getloadavg()
    results["duration_s"] = round(time.monotonic() - started, 1)

    table = write_all(results, args.out)
    print(table)
    log(f"wrote {os.path.join(args.out, 'results.json')} in {results['duration_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
