# An RLM session over a 300 KB sales export: monthly revenue, customer ranking, the sub-LLM writing a note per customer.
# variables: context = sales_csv(6000, seed=12)
# variables: query = "Give monthly revenue for 2024 and a short account note for each of the top three customers."
# %% peek
print(len(context))
print("\n".join(context.splitlines()[:4]))

# %% csv into typed rows, skipping rows without quantity
import csv, io
from datetime import date
from fractions import Fraction

rows = []
skipped = 0
for r in csv.DictReader(io.StringIO(context)):
    if not r["quantity"]:
        skipped += 1
        continue
    rows.append({
        "date": date.fromisoformat(r["date"]),
        "customer": r["customer"],
        "product": r["product"],
        "qty": int(r["quantity"]),
        "cents": int(r["unit_price"].replace(".", "")),
    })
print(len(rows), "rows,", skipped, "skipped")
print(rows[0])

# %% monthly revenue in cents, then dollars
from collections import defaultdict
monthly = defaultdict(int)
for r in rows:
    monthly[r["date"].strftime("%Y-%m")] += r["qty"] * r["cents"]
for month in sorted(monthly):
    print(month, f"${monthly[month] / 100:>12,.2f}")

# %% month-over-month change
months = sorted(monthly)
changes = {m2: (monthly[m2] - monthly[m1]) / monthly[m1] for m1, m2 in zip(months, months[1:])}
print({m: f"{c:+.1%}" for m, c in changes.items()})
print("best month:", max(monthly, key=monthly.get))

# %% customer ranking
totals = defaultdict(int)
orders = defaultdict(int)
for r in rows:
    totals[r["customer"]] += r["qty"] * r["cents"]
    orders[r["customer"]] += 1
ranking = sorted(totals, key=lambda c: totals[c], reverse=True)
top3 = ranking[:3]
for c in top3:
    print(c, "$" + format(totals[c] / 100, ",.2f"), orders[c], "orders")

# %% average order value as exact fractions
aov = {c: Fraction(totals[c], orders[c] * 100) for c in top3}
print(aov)
print({c: float(v) for c, v in aov.items()})
print({c: round(v, 2) for c, v in aov.items()})

# %% product mix per top customer
from collections import Counter
mix = {c: Counter() for c in top3}
for r in rows:
    if r["customer"] in mix:
        mix[r["customer"]][r["product"]] += r["qty"]
for c in top3:
    print(c, mix[c].most_common(2))

# %% one note per customer from the sub-LLM
prompts = [
    f"Write a short account note for {c}: total ${totals[c] / 100:,.2f} over {orders[c]} orders; "
    f"favourite products {', '.join(p for p, _ in mix[c].most_common(2))}."
    for c in top3
]
notes = llm_query_batched(prompts)
for c, n in zip(top3, notes):
    print(f"{c}: {n}")

# %% the prompt was passed as a tuple by mistake
# differs: the sandbox checks a tool's argument against its str annotation before calling it, so the TypeError's message is its own, not the tool's
print(llm_query(("Summarise:", prompts[0])))

# %% fixed: join the parts
print(llm_query(" ".join(("Summarise:", prompts[0]))))

# %% submit
SUBMIT(
    monthly_revenue={m: round(monthly[m] / 100, 2) for m in months},
    top_customers=[{"name": c, "revenue": totals[c] / 100, "orders": orders[c], "note": n} for c, n in zip(top3, notes)],
)
