# An RLM session over a 2 MB CSV export: revenue by region and product, messy fields, a naive split that breaks.
# variables: context = sales_csv(40_000, seed=29)
# variables: query = "What was the revenue per region in Q2 2024, and which product led each region?"
# %% peek
print(len(context))
head = context[:600].splitlines()
for row in head:
    print(repr(row))

# %% naive parse with split(",")
header = context.splitlines()[0].split(",")
rows = [line.split(",") for line in context.splitlines()[1:]]
widths = {len(r) for r in rows}
print(header)
print("field counts seen:", sorted(widths))
bad_rows = [r for r in rows if len(r) != len(header)]
print(len(bad_rows), bad_rows[0])

# %% the quoted "gift, wrapped" note breaks split: use csv
import csv
import io

reader = csv.DictReader(io.StringIO(context))
records_ = list(reader)
print(len(records_), reader.fieldnames)
print(records_[1])
print(sorted({len(r) for r in records_}))

# %% normalise region, quantity and price
from decimal import Decimal, ROUND_HALF_UP

def clean(r: dict) -> dict:
    return {
        "id": int(r["order_id"]),
        "date": r["date"],
        "region": r["region"].strip().lower(),
        "product": r["product"],
        "qty": int(r["quantity"]),
        "price": Decimal(r["unit_price"]),
        "note": r["notes"].strip(),
    }

cleaned = [clean(r) for r in records_]
print(len(cleaned))

# %% empty quantities: count them and skip
missing_qty = [r["order_id"] for r in records_ if not r["quantity"].strip()]
print(f"{len(missing_qty)} rows without quantity, e.g. {missing_qty[:5]}")
cleaned = [clean(r) for r in records_ if r["quantity"].strip()]
print(len(cleaned), cleaned[0])
print(sorted({r["region"] for r in cleaned}))

# %% Q2 revenue by region with Decimal
from collections import defaultdict

q2 = [r for r in cleaned if "2024-04-01" <= r["date"] <= "2024-06-30"]
revenue: dict[str, Decimal] = defaultdict(Decimal)
by_region_product: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
for r in q2:
    amount = r["price"] * r["qty"]
    revenue[r["region"]] += amount
    by_region_product[(r["region"], r["product"])] += amount
for region in sorted(revenue):
    print(f"{region:<6} {revenue[region].quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):>14,}")
print("Q2 orders:", len(q2), "total:", sum(revenue.values()))

# %% leader per region
leaders = {}
for region in sorted(revenue):
    items = {p: v for (rg, p), v in by_region_product.items() if rg == region}
    best = max(items, key=lambda p: (items[p], p))
    leaders[region] = (best, items[best])
for region, (product, value) in leaders.items():
    pct = value / revenue[region] * 100
    print(f"{region}: {product} ${value:,.2f} ({pct:.1f}%)")

# %% how many sub-LLM chunks would the raw CSV need at a 4 MB budget?
all_lines = context.splitlines()[1:]
n_chunks = len(context) // 4_000_000
rows_per_chunk = len(all_lines) // n_chunks
print(n_chunks, rows_per_chunk)

# %% the CSV is smaller than the budget: at least one chunk
n_chunks = max(1, -(-len(context) // 4_000_000))
rows_per_chunk = -(-len(all_lines) // n_chunks)
print(n_chunks, rows_per_chunk)

# %% notes column: what do people write?
from collections import Counter
notes = Counter(r["note"] or "<empty>" for r in cleaned)
print(notes.most_common())

# %% ask the sub-LLM to sanity-check one region's rows (a sample, not 2 MB)
sample_rows = [r for r in q2 if r["region"] == "east"][:40]
block = "\n".join(f"{r['id']},{r['date']},{r['product']},{r['qty']},{r['price']}" for r in sample_rows)
print(len(block), "chars sent")
print(llm_query(f"How many of these east-region orders have a quantity above 10?\n{block}"))
print(sum(1 for r in sample_rows if r["qty"] > 10), "by my own count")

# %% build the answer
answer = {
    region: {
        "revenue": str(revenue[region].quantize(Decimal("0.01"))),
        "top_product": leaders[region][0],
    }
    for region in sorted(revenue)
}
print(json_answer := __import__("json").dumps(answer, indent=1))

# %% submit
SUBMIT(revenue_by_region=answer, q2_orders=len(q2), skipped_rows=len(missing_qty))
