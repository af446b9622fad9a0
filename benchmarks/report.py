"""The benchmark's outputs: the printed (markdown) table, ``results.json`` and ``chart.png``."""

from __future__ import annotations

import json
import math
import os
import textwrap
from typing import Any

REFERENCE = "rust"  # ratio columns are "peer / RustInterpreter"
COLOURS = {"rust": "#b7410e", "exec": "#7f7f7f", "local": "#1f77b4", "monty": "#2ca02c", "pyodide": "#9467bd"}


def format_number(value: float) -> str:
    if value == 0:
        return "0"
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 1:
        return f"{value:.2f}"
    return f"{value:.2g}"


def format_ratio(ratio: float) -> str:
    if abs(ratio) >= 10:
        return f"{ratio:,.0f}×"
    return f"{ratio:.2f}×" if abs(ratio) >= 0.1 else f"{ratio:.1g}×"


def format_table(results: dict[str, Any]) -> str:
    """Rows are workloads, columns the implementations, then one "peer / RustInterpreter" column per peer.

    A workload an implementation could not do shows "error [n]"; note n below the table gives the error. A
    skipped implementation keeps its column, marked "skipped", with the reason below.
    """
    impls = results["implementations"]
    measured = [name for name, entry in impls.items() if not entry["skipped"]]
    peers = [name for name in measured if name != REFERENCE] if REFERENCE in measured else []
    header = ["workload (unit)", *(impls[name]["label"] for name in impls)]
    header += [f"{impls[name]['label']} / {impls[REFERENCE]['label']}" for name in peers]
    notes: list[str] = []

    def note_number(text: str) -> int:
        if text not in notes:
            notes.append(text)
        return notes.index(text) + 1

    rows = []
    for workload in results["workloads"]:
        key = workload["key"]
        if not any(key in impls[name]["workloads"] for name in impls):
            continue  # a workload nobody was asked to run (e.g. the leak cycle in a --impl exec run)
        row = [f"{workload['label']} ({workload['unit']})"]
        for entry in impls.values():
            cell = entry["workloads"].get(key)
            if entry["skipped"]:
                row.append("skipped")
            elif cell is None:
                row.append("")
            elif "error" in cell:
                row.append(f"error [{note_number(entry['label'] + ': ' + cell['error'])}]")
            else:
                text = format_number(cell["value"])
                if cell.get("note"):
                    text += f" [{note_number(entry['label'] + ': ' + cell['note'])}]"
                row.append(text)
        reference = impls.get(REFERENCE, {}).get("workloads", {}).get(key, {})
        for name in peers:
            peer = impls[name]["workloads"].get(key, {})
            if "value" in peer and "value" in reference and reference["value"]:
                row.append(format_ratio(peer["value"] / reference["value"]))
            else:
                row.append("")
        rows.append(row)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    for entry in impls.values():
        if entry["skipped"]:
            lines.append(f"\n{entry['label']} skipped: {entry['skipped']}")
    if notes:
        lines.append("")
        lines += [f"[{number}] {text}" for number, text in enumerate(notes, 1)]
    lines += geometric_means(results)
    machine = results["machine"]
    lines.append(
        f"\n{results['mode']} run, {machine['date']}: {machine['cpu_model']}, {machine['cores']} cores, "
        f"Python {machine['python']}; load average {machine['load_average_at_start'][0]:.2f} at start, "
        f"{machine.get('load_average_at_end', [0])[0]:.2f} at end; {results.get('duration_s')} s"
    )
    return "\n".join(lines)


# Groups whose speed is summed up as one figure per peer (issue 30's targets are stated that way).
SUMMED_GROUPS = ("cpu", "text")


def geometric_means(results: dict[str, Any]) -> list[str]:
    """Per summed group and peer: the geometric mean of "peer time / RustInterpreter time" (above 1: faster
    than the peer) over the workloads both measured, and the lowest."""
    impls = results["implementations"]
    reference = impls.get(REFERENCE)
    if reference is None or reference["skipped"]:
        return []
    lines = []
    for group in SUMMED_GROUPS:
        keys = [w["key"] for w in results["workloads"] if w["group"] == group and w["unit"] == "ms"]
        for name, entry in impls.items():
            if name == REFERENCE or entry["skipped"]:
                continue
            ratios = {}
            for key in keys:
                ours, theirs = reference["workloads"].get(key, {}), entry["workloads"].get(key, {})
                if ours.get("value") and theirs.get("value"):
                    ratios[key] = theirs["value"] / ours["value"]
            if ratios:
                mean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
                lowest = min(ratios, key=ratios.get)
                lines.append(
                    f"{group} group, {entry['label']} / {reference['label']}: geometric mean "
                    f"{format_ratio(mean)} over {len(ratios)} workloads (lowest {format_ratio(ratios[lowest])}, "
                    f"{lowest})"
                )
    return [""] + lines if lines else []


# Units of the workloads the chart shows: costs (time, memory), where lower is better and CPython exec's own
# figure is the yardstick. Rates and ratios (runs/s, ×) and exec's zero costs have no ratio to show.
CHARTED_UNITS = ("ms", "µs", "MB")


def chart_rows(results: dict[str, Any]) -> list[tuple[str, dict[str, float]]]:
    """Per workload with a CPython exec figure: each other implementation's cost relative to exec's (1 = as
    fast as CPython exec; 10 = ten times its time or memory)."""
    impls = {name: entry for name, entry in results["implementations"].items() if not entry["skipped"]}
    exec_entry = impls.get("exec")
    if exec_entry is None:
        return []
    rows = []
    for workload in results["workloads"]:
        if workload["unit"] not in CHARTED_UNITS:
            continue
        base = exec_entry["workloads"].get(workload["key"], {}).get("value")
        if not base or base <= 0:
            continue
        ratios = {
            name: cell["value"] / base
            for name, entry in impls.items()
            if name != "exec" and (cell := entry["workloads"].get(workload["key"], {})).get("value", 0) > 0
        }
        if ratios:
            rows.append((workload["label"], ratios))
    return rows


def write_chart(results: dict[str, Any], path: str) -> str | None:
    """One figure: per workload, each implementation's cost relative to CPython exec's (log scale, exec = 1),
    one colour per implementation. The reason if none is drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"no chart: matplotlib is not installed ({exc}); pip install '.[bench]'"

    rows = chart_rows(results)
    if not rows:
        return "no chart: no workload has both a CPython exec figure and another implementation's"
    impls = [name for name in results["implementations"] if name != "exec" and any(name in r for _, r in rows)]
    height = 0.8 / len(impls)
    figure, axis = plt.subplots(figsize=(9, 0.42 * len(rows) * max(1, len(impls) / 2.5) + 1.6))
    for index, name in enumerate(impls):
        label = results["implementations"][name]["label"].split(" (")[0]
        ys = [row - 0.4 + height * (index + 0.5) for row, (_, ratios) in enumerate(rows) if name in ratios]
        xs = [ratios[name] for _, ratios in rows if name in ratios]
        axis.barh(ys, xs, height=height, color=COLOURS.get(name, "#333333"), label=label)
    axis.axvline(1, color=COLOURS["exec"], linewidth=1.2, label="CPython exec (= 1)")
    axis.set_xscale("log")
    axis.set_yticks(range(len(rows)))
    axis.set_yticklabels([textwrap.fill(label, 44) for label, _ in rows], fontsize=7.5)
    axis.invert_yaxis()
    axis.tick_params(axis="x", labelsize=8)
    axis.set_xlabel("time (or memory) relative to CPython exec = 1, log scale: lower is better", fontsize=8.5)
    axis.grid(axis="x", which="major", alpha=0.3)
    axis.legend(fontsize=8, loc="lower right")
    machine = results["machine"]
    axis.set_title(
        f"dspy-rust-interpreter benchmark ({results['mode']}), {machine['date'][:10]}, "
        f"{machine['cpu_model']}, {machine['cores']} cores",
        fontsize=9,
    )
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return None


def write_all(results: dict[str, Any], out_dir: str) -> str:
    """Write results.json and chart.png into ``out_dir``; return the table (with the chart's fate noted)."""
    os.makedirs(out_dir, exist_ok=True)
    table = format_table(results)
    chart_problem = write_chart(results, os.path.join(out_dir, "chart.png"))
    results["chart"] = chart_problem or "chart.png"
    results["table_markdown"] = table
    # Written via a temporary file so an interrupted run never leaves a half-written results.json behind.
    temporary = os.path.join(out_dir, "results.json.tmp")
    with open(temporary, "w") as handle:
        json.dump(results, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    os.replace(temporary, os.path.join(out_dir, "results.json"))
    return table + (f"\n{chart_problem}" if chart_problem else "")
