"""The benchmark's outputs: the printed (markdown) table, ``results.json`` and ``chart.png``."""

from __future__ import annotations

import json
import os
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
        for name, entry in impls.items():
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
    for name, entry in impls.items():
        if entry["skipped"]:
            lines.append(f"\n{entry['label']} skipped: {entry['skipped']}")
    if notes:
        lines.append("")
        lines += [f"[{number}] {text}" for number, text in enumerate(notes, 1)]
    machine = results["machine"]
    lines.append(
        f"\n{results['mode']} run, {machine['date']}: {machine['cpu_model']}, {machine['cores']} cores, "
        f"Python {machine['python']}; load average {machine['load_average_at_start'][0]:.2f} at start, "
        f"{machine.get('load_average_at_end', [0])[0]:.2f} at end; {results.get('duration_s')} s"
    )
    return "\n".join(lines)


def write_chart(results: dict[str, Any], path: str) -> str | None:
    """One small log-scale bar chart per workload, one colour per implementation. The reason if none is drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"no chart: matplotlib is not installed ({exc}); pip install '.[bench]'"

    impls = {name: entry for name, entry in results["implementations"].items() if not entry["skipped"]}
    workloads = [w for w in results["workloads"]
                 if any("value" in entry["workloads"].get(w["key"], {}) for entry in impls.values())]
    if not workloads:
        return "no chart: no workload produced a number"
    columns = 4
    rows = (len(workloads) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.9 * rows), squeeze=False)
    for axis, workload in zip(axes.flat, workloads):
        names, values, colours = [], [], []
        for name, entry in impls.items():
            cell = entry["workloads"].get(workload["key"], {})
            names.append(entry["label"].split(" (")[0])
            # A log axis cannot show zero or a negative growth: such a bar is left out and labelled.
            values.append(cell["value"] if cell.get("value", 0) > 0 else float("nan"))
            colours.append(COLOURS.get(name, "#333333"))
        axis.bar(range(len(names)), values, color=colours)
        axis.set_yscale("log")
        axis.set_xticks(range(len(names)))
        axis.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
        axis.set_title(f"{workload['label']} ({workload['unit']})", fontsize=7.5, wrap=True)
        axis.tick_params(axis="y", labelsize=7)
        for x, name in enumerate(impls):
            cell = impls[name]["workloads"].get(workload["key"], {})
            if "error" in cell:
                axis.annotate("error", (x, 0.02), xycoords=("data", "axes fraction"), ha="center", fontsize=7)
            elif cell.get("value") is not None and cell["value"] <= 0:
                axis.annotate(format_number(cell["value"]), (x, 0.02), xycoords=("data", "axes fraction"),
                              ha="center", fontsize=7)
    for axis in list(axes.flat)[len(workloads):]:
        axis.axis("off")
    machine = results["machine"]
    figure.suptitle(f"dspy-rust-interpreter benchmark ({results['mode']}), {machine['date'][:10]}, "
                    f"{machine['cpu_model']}, {machine['cores']} cores — log scale", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 0.97))
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
