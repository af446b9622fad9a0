#!/usr/bin/env python
"""dspy.RLM answering a question over a folder of documents mounted into the sandbox (docs/files.md).

The script writes a small corpus of support tickets (deterministic, one Markdown file each, in folders by
month) to a temporary folder, mounts it read-only at /tickets, mounts an empty results folder read-write at
/out, and asks dspy.RLM which product has the most open tickets. The model is told about the mounts in its
instructions and explores them with glob/open; the documents never enter its prompt. It also writes a CSV
report to /out, which lands in the host folder.

    python examples/rlm_mounted_folder.py                      # scripted "model", offline
    DSPY_LM=openai/gpt-4o-mini python examples/rlm_mounted_folder.py
"""

from __future__ import annotations

import csv
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import dspy
from dspy.utils.dummies import DummyLM

from dspy_rust_interpreter import Mount, RustInterpreter

SIGNATURE = "question -> product: str, open_tickets: int"
QUESTION = "Which product has the most open tickets in /tickets, and how many? Also write /out/report.csv."
PRODUCTS = ("atlas", "beacon", "comet", "delta")


def write_corpus(folder: Path) -> dict[str, object]:
    """The tickets, and what the answer must be."""
    open_counts: Counter[str] = Counter()
    for n in range(60):
        month = ("2026-09", "2026-10", "2026-11")[n % 3]
        product = PRODUCTS[(n * 7 + n // 5) % len(PRODUCTS)]
        status = "open" if (n * 5 + len(product)) % 3 else "closed"
        (folder / month).mkdir(exist_ok=True)
        body = f"# Ticket {n}\n\nproduct: {product}\nstatus: {status}\n\nThe customer reports issue #{n * 13 % 97}.\n"
        (folder / month / f"ticket-{n:03d}.md").write_text(body)
        open_counts[product] += status == "open"
    product, count = open_counts.most_common(1)[0]
    return {"product": product, "open_tickets": count, "counts": dict(open_counts)}


def step(reasoning: str, code: str) -> dict[str, str]:
    return {"reasoning": reasoning, "code": f"```python\n{code.strip()}\n```"}


SCRIPTED_STEPS = [
    step(
        "Look at what the mounted folder holds.",
        """
import glob
paths = sorted(glob.glob('/tickets/**/*.md', recursive=True))
print(len(paths), paths[:2])
print(open(paths[0]).read())
""",
    ),
    step(
        "Count open tickets per product from each file's header lines.",
        """
from collections import Counter
import csv
open_by_product = Counter()
for path in paths:
    fields = dict(line.split(': ', 1) for line in open(path).read().splitlines() if ': ' in line)
    if fields.get('status') == 'open':
        open_by_product[fields['product']] += 1
with open('/out/report.csv', 'w', newline='') as f:
    writer = csv.writer(f)
    writer.writerow(['product', 'open_tickets'])
    writer.writerows(sorted(open_by_product.items()))
print(open_by_product.most_common())
""",
    ),
    step(
        "Submit the product with the most open tickets.",
        """
product, count = open_by_product.most_common(1)[0]
SUBMIT(product=product, open_tickets=count)
""",
    ),
]


def main() -> int:
    with tempfile.TemporaryDirectory() as tickets, tempfile.TemporaryDirectory() as out:
        truth = write_corpus(Path(tickets))
        factory = RustInterpreter.configured(mounts=[Mount("/tickets", tickets), Mount("/out", out, mode="rw")])
        model_name = os.environ.get("DSPY_LM", "").strip()
        lm = dspy.LM(model_name) if model_name else DummyLM(list(SCRIPTED_STEPS))
        rlm = dspy.RLM(SIGNATURE, interpreter_factory=factory, max_iters=len(SCRIPTED_STEPS) + 12)
        started = time.perf_counter()
        with dspy.context(lm=lm):
            prediction = rlm(question=QUESTION)
        elapsed = time.perf_counter() - started

        print("instructions:", factory.execution_instructions.split("Files:", 1)[1].strip().replace("\n", "\n  "))
        print("trajectory  :")
        for index, entry in enumerate(prediction.trajectory, 1):
            print(f"  {index}. {entry['output'].strip()[:100]!r}")
        print(f"answer      : {prediction.product!r}, {prediction.open_tickets!r} open tickets")
        report = Path(out) / "report.csv"
        rows = list(csv.reader(report.open())) if report.exists() else []
        print(f"report      : {report.name} on the host, {len(rows) - 1} products" if rows else "report      : missing")
        print(f"elapsed     : {elapsed:.2f} s")
        correct = prediction.product == truth["product"] and prediction.open_tickets == truth["open_tickets"]
        expected_rows = [["product", "open_tickets"]] + [[p, str(n)] for p, n in sorted(truth["counts"].items())]
        correct = correct and rows == expected_rows
        print(f"check       : {'matches the corpus' if correct else 'MISMATCH, expected ' + repr(truth)}")
        return 0 if correct or model_name else 2


if __name__ == "__main__":
    sys.exit(main())
