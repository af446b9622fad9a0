"""Run many sandboxed jobs from a thread pool, each on an interpreter checked out of an InterpreterPool.

    python examples/thread_pool.py

The pool builds sandboxes ahead of time (a checkout takes well under a millisecond) and replaces each one
returned, so no job sees another's variables. The GIL is released while sandbox code runs, so jobs on
different threads run in parallel on different cores.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from dspy_rust_interpreter import InterpreterPool

JOB = """
words = text.split()
counts = {}
for word in words:
    counts[word] = counts.get(word, 0) + 1
sorted(counts.items(), key=lambda kv: -kv[1])[:3]
"""


def main() -> None:
    texts = [f"alpha beta gamma {'beta ' * n}{'gamma ' * (n % 3)}" * 200 for n in range(16)]
    with InterpreterPool(size=4, timeout=10.0) as pool:

        def run(text: str) -> object:
            with pool.interpreter() as interp:
                return interp.execute(JOB, variables={"text": text})

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=4) as threads:
            results = list(threads.map(run, texts))
        elapsed = time.perf_counter() - started
    for n, top in enumerate(results[:4]):
        print(f"text {n}: {top}")
    print(f"{len(results)} jobs in {elapsed * 1000:.0f} ms")


if __name__ == "__main__":
    main()
