"""numpy and pandas in the sandbox beside CPython with the same libraries, in one run (docs/packages.md, issue 55).

    python benchmarks/data_packages.py [--repeat 5] [--out benchmarks/results]

Rows: a new session with numpy and pandas imported beside a plain new session (each the median of ``--repeat``
sessions, made at RLM's pace, one per call with a pause between, and back to back, after the set's first session); the first session of
the set (its zygote's import, once per host process); and work timed inside a cell against the same code run by
this process's CPython: a vectorised expression over 10 million floats, ``groupby(...).agg(...)`` over a million
rows, and one crossing (``arr[i]`` in a loop of 100,000). Then values across the host boundary: a 100 MB array
and a DataFrame of a million rows given as a variable and returned as a cell's value, beside a pickle round trip of
the same value in this process (the least a sandbox in another process pays). Times are medians of ``--repeat``
runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pickle
import statistics
import time

import numpy as np
import pandas as pd

from dspy_rust_interpreter import RustInterpreter

PACKAGES = ["numpy", "pandas"]
# Seconds between sessions at RLM's pace (a model call between two of them).
PACE = 0.05
SETUP = """
import numpy as np
import pandas as pd
rng = np.random.default_rng(0)
x = rng.random(10_000_000)
frame = pd.DataFrame({"key": rng.integers(0, 1000, 1_000_000), "value": rng.random(1_000_000)})
small = np.arange(100_000, dtype=np.float64)
"""
WORK = {
    "vectorised expression, 10M floats": "y = np.sqrt(x * 2.0 + 1.0).sum()",
    "groupby(...).agg(...), 1M rows": "g = frame.groupby('key')['value'].agg(['mean', 'max', 'count'])",
    "arr[i] in a loop of 100,000": "t = 0.0\nfor i in range(100_000):\n    t += small[i]",
}


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def median_of(repeat: int, run) -> float:
    return statistics.median(timed(run) for _ in range(repeat))


def session_rows(repeat: int) -> dict[str, float]:
    first = timed(lambda: RustInterpreter(packages=PACKAGES).execute("import numpy, pandas"))

    def new_session(packages):
        interp = RustInterpreter(packages=packages) if packages else RustInterpreter()
        interp.execute("import numpy, pandas" if packages else "1")
        interp.shutdown()

    def at_rlms_pace(packages):
        # RLM makes an interpreter per call, with a model's answer between: the time is the session's alone.
        time.sleep(PACE)
        return timed(lambda: new_session(packages))

    new_session(PACKAGES)
    new_session(None)
    return {
        "first session of the set (its zygote imports the packages)": first,
        "new session, numpy and pandas imported": statistics.median(at_rlms_pace(PACKAGES) for _ in range(repeat)),
        "new plain session": statistics.median(at_rlms_pace(None) for _ in range(repeat)),
        "new session with numpy and pandas, back to back": median_of(repeat, lambda: new_session(PACKAGES)),
        "new plain session, back to back": median_of(repeat, lambda: new_session(None)),
    }


def work_rows(repeat: int) -> dict[str, tuple[float, float]]:
    interp = RustInterpreter(packages=PACKAGES, timeout=300)
    interp.execute(SETUP)
    namespace: dict = {}
    exec(SETUP, namespace)  # noqa: S102 - our own benchmark code
    rows = {}
    for name, code in WORK.items():
        sandbox = median_of(repeat, lambda code=code: interp.execute(code))
        cpython = median_of(repeat, lambda code=code: exec(code, namespace))  # noqa: S102
        rows[name] = (sandbox, cpython)
    interp.shutdown()
    return rows


def crossing_rows(repeat: int) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(0)
    values = {
        "100 MB float array": rng.random(12_500_000),
        "DataFrame, 1M rows (int, float, str)": pd.DataFrame(
            {"key": rng.integers(0, 1000, 1_000_000), "value": rng.random(1_000_000), "label": ["abc", "de"] * 500_000}
        ),
    }
    interp = RustInterpreter(packages=PACKAGES, timeout=300)
    interp.execute("import numpy, pandas")
    rows = {}
    for name, value in values.items():
        round_trip = median_of(repeat, lambda value=value: pickle.loads(pickle.dumps(value, protocol=5)))
        given = median_of(repeat, lambda value=value: interp.execute("kept = v\nNone", variables={"v": value}))
        returned = median_of(repeat, lambda: interp.execute("kept"))
        rows[f"{name} given as a variable"] = (given, round_trip)
        rows[f"{name} returned as a cell's value"] = (returned, round_trip)
    interp.shutdown()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    sessions = session_rows(args.repeat)
    work = work_rows(args.repeat)
    crossing = crossing_rows(args.repeat)
    print("| session | ms |\n|---|---|")
    for name, seconds in sessions.items():
        print(f"| {name} | {seconds * 1000:.2f} |")
    print("\n| work in a cell | sandbox ms | CPython ms | ratio |\n|---|---|---|---|")
    for name, (sandbox, cpython) in work.items():
        print(f"| {name} | {sandbox * 1000:.1f} | {cpython * 1000:.1f} | {sandbox / cpython:.2f} |")
    print("\n| value across the host boundary | sandbox ms | pickle round trip ms | ratio |\n|---|---|---|---|")
    for name, (sandbox, cpython) in crossing.items():
        print(f"| {name} | {sandbox * 1000:.1f} | {cpython * 1000:.1f} | {sandbox / cpython:.2f} |")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"data_packages_{datetime.date.today().isoformat()}.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump({"sessions": sessions, "work": work, "crossing": crossing}, file, indent=1)


if __name__ == "__main__":
    main()
