"""Many threads, many interpreters: every result reaches the caller that asked for it, with tool calls and
errors mixed in, no deadlock, no crash (run in a child process, so a crash or hang fails the test)."""

from __future__ import annotations

from isolated import run_isolated


def test_eight_threads_share_four_interpreters_with_tools_and_errors():
    results = run_isolated(
        """
        import threading, random
        from concurrent.futures import ThreadPoolExecutor

        def tag(thread, step):
            return f"{thread}:{step}"

        interps = [RustInterpreter(tools={"tag": tag}, timeout=20.0) for _ in range(4)]
        for n, interp in enumerate(interps):
            interp.execute(f"me = {n}")
        wrong, errors_seen, ok = [], 0, 0
        lock = threading.Lock()

        def worker(thread):
            global errors_seen, ok
            rng = random.Random(thread)
            for step in range(150):
                n = rng.randrange(4)
                interp = interps[n]
                kind = step % 3
                try:
                    if kind == 0:
                        got = interp.execute("(me, tag(t, s))", variables={"t": thread, "s": step})
                        expected = [n, f"{thread}:{step}"]
                        if list(got) != expected:
                            with lock:
                                wrong.append((got, expected))
                    elif kind == 1:
                        interp.execute("1 / 0 if s >= 0 else 0", variables={"s": step})
                        with lock:
                            wrong.append(("no error", step))
                    else:
                        got = interp.execute("print(t, s)\\nsum(range(s))", variables={"t": thread, "s": step})
                        if got != f"{thread} {step}\\n{sum(range(step))}":
                            with lock:
                                wrong.append((got, step))
                    with lock:
                        ok += 1
                except CodeExecutionError as error:
                    with lock:
                        if kind == 1 and "ZeroDivisionError" in str(error):
                            errors_seen += 1
                        else:
                            wrong.append(("unexpected error", str(error)[:200]))

        started = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(worker, range(8)))
        results["seconds"] = time.perf_counter() - started
        results["wrong"] = wrong[:5]
        results["errors_seen"] = errors_seen
        results["ok"] = ok
        results["alive"] = [interp.execute("me") for interp in interps]
        for interp in interps:
            interp.shutdown()
        """,
        timeout=300,
    )
    assert results["wrong"] == []
    assert results["errors_seen"] == 8 * 50
    assert results["ok"] == 8 * 100
    assert results["alive"] == [0, 1, 2, 3]
