"""The benchmark chart's figures: each implementation's cost per workload relative to CPython exec's."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import report  # noqa: E402


def _results():
    def impl(label, **values):
        return {"label": label, "skipped": None, "workloads": {k: {"value": v} for k, v in values.items()}}

    return {
        "workloads": [
            {"key": "fib_ms", "label": "fib", "unit": "ms"},
            {"key": "rss_mb", "label": "rss", "unit": "MB"},
            {"key": "runs", "label": "runs per second", "unit": "runs/s"},
            {"key": "new_ms", "label": "new session", "unit": "ms"},
        ],
        "implementations": {
            "rust": impl("RustInterpreter", fib_ms=20.0, rss_mb=0.5, runs=40.0, new_ms=1.5),
            "exec": impl("CPython exec", fib_ms=5.0, rss_mb=0.0, runs=80.0),
            "monty": impl("Monty (dspy adapter)", fib_ms=10.0),
        },
    }


def test_rows_are_costs_relative_to_cpython_exec_and_skip_what_has_no_ratio():
    rows = report.chart_rows(_results())
    # rss: exec's 0 has no ratio; runs/s is a rate, not a cost; new session: exec has no figure.
    assert rows == [("fib", {"rust": 4.0, "monty": 2.0})]


def test_the_chart_is_one_figure(tmp_path):
    out = tmp_path / "chart.png"
    results = _results()
    results["mode"], results["machine"] = "quick", {"date": "2026-11-24", "cpu_model": "test", "cores": 2}
    problem = report.write_chart(results, str(out))
    assert problem is None or problem.startswith("no chart: matplotlib is not installed")
    if problem is None:
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_group_is_summed_up_as_the_geometric_mean_of_peer_over_ours():
    results = {
        "workloads": [
            {"key": "a_ms", "group": "text", "label": "a", "unit": "ms"},
            {"key": "b_ms", "group": "text", "label": "b", "unit": "ms"},
            {"key": "c_ms", "group": "text", "label": "c", "unit": "ms"},
            {"key": "other_ms", "group": "main", "label": "other", "unit": "ms"},
        ],
        "implementations": {
            "rust": {
                "label": "Rust",
                "skipped": None,
                "workloads": {"a_ms": {"value": 1.0}, "b_ms": {"value": 4.0}, "c_ms": {"error": "x"}, "other_ms": {"value": 9.0}},
            },
            "exec": {
                "label": "CPython",
                "skipped": None,
                "workloads": {"a_ms": {"value": 2.0}, "b_ms": {"value": 2.0}, "c_ms": {"value": 1.0}, "other_ms": {"value": 1.0}},
            },
        },
    }
    # 2/1 and 2/4: geometric mean 1; c has no figure of ours, `other` is not in a summed group.
    assert report.geometric_means(results) == [
        "",
        "text group, CPython / Rust: geometric mean 1.00× over 2 workloads (lowest 0.50×, b_ms)",
    ]
