# Data cleaning and outlier hunting on a second sales export, prices converted to EUR with the fx tool.
# variables: export = sales_csv(3000, seed=9)
# variables: instructions = "Clean the export, flag suspicious orders (quantity or unit price far from the product's norm), report weekly EUR revenue for Q2, and list the flagged order ids."
# %% peek
print(instructions)
head, *body = export.splitlines()
print(head)
print(body[:3])
print(len(body))

# %% naive split breaks on quoted commas
widths = Counter(len(line.split(",")) for line in body)

# %% import first
from collections import Counter
widths = Counter(len(line.split(",")) for line in body)
print(widths)
print(next(line for line in body if len(line.split(",")) == 9))

# %% use the csv module instead
import csv, io
records_ = list(csv.reader(io.StringIO(export)))
header, data = records_[0], records_[1:]
print(Counter(len(r) for r in data))
idx = {name: i for i, name in enumerate(header)}
print(idx)

# %% build typed rows with a NamedTuple, skipping blank quantities
from typing import NamedTuple
from datetime import date

class Sale(NamedTuple):
    order_id: int
    day: date
    customer: str
    region: str
    product: str
    qty: int
    unit_usd: float
    note: str

sales: list[Sale] = []
skipped = []
for r in data:
    if not r[idx["quantity"]].strip():
        skipped.append(r[idx["order_id"]])
        continue
    sales.append(Sale(int(r[0]), date.fromisoformat(r[1]), r[2].strip(), r[3].strip().lower(), r[4], int(r[5]), float(r[6]), r[7].strip().lower()))
print(len(sales), "kept,", len(skipped), "skipped")
sales[0]

# %% a first label attempt mixes str and int
print("Order " + sales[0].order_id + " has qty " + sales[0].qty)

# %% fixed with an f-string
print(f"Order {sales[0].order_id} has qty {sales[0].qty}")

# %% per-product norms: median and MAD
import statistics
from collections import defaultdict
by_product: defaultdict[str, list[Sale]] = defaultdict(list)
for s in sales:
    by_product[s.product].append(s)

norms = {}
for product, group in sorted(by_product.items()):
    prices = [s.unit_usd for s in group]
    med = statistics.median(prices)
    mad = statistics.median(abs(p - med) for p in prices)
    q1, q2, q3 = statistics.quantiles(prices, n=4)
    norms[product] = {"median": med, "mad": mad, "iqr": round(q3 - q1, 2), "n": len(group)}
    print(f"{product:<10} n={len(group):<4} median={med:>6.2f} mad={mad:>6.2f} iqr={q3 - q1:>6.2f}")

# %% flags: robust z-score over price, and suspicious quantities
def robust_z(value: float, med: float, mad: float) -> float:
    return 0.6745 * (value - med) / mad if mad else 0.0

flagged: dict[int, list[str]] = {}
for s in sales:
    n = norms[s.product]
    z = robust_z(s.unit_usd, n["median"], n["mad"])
    reasons = []
    if abs(z) > 1.6:
        reasons.append(f"price z={z:+.2f}")
    if s.qty >= 19 and s.unit_usd > 90:
        reasons.append("large high-value order")
    if s.note == "returned" and s.qty >= 18:
        reasons.append("big return")
    if reasons:
        flagged[s.order_id] = reasons
print(len(flagged), "flagged")
for oid in sorted(flagged)[:8]:
    print(oid, "; ".join(flagged[oid]))

# %% Q2 weekly revenue in EUR (one fx call for the rate)
rate = fx_convert_currency(1.0, "USD", "EUR")["rate"]
print("USD->EUR", rate)
weekly: defaultdict[tuple[int, int], float] = defaultdict(float)
for s in sales:
    if 4 <= s.day.month <= 6 and s.note != "returned":
        iso = s.day.isocalendar()
        weekly[(iso.year, iso.week)] += s.qty * s.unit_usd * rate
weeks = sorted(weekly)
print(len(weeks), "weeks from", weeks[0], "to", weeks[-1])
for y, w in weeks:
    monday = date.fromisocalendar(y, w, 1)
    print(f"{y}-W{w:02d} ({monday:%d %b})  EUR {weekly[(y, w)]:>10,.2f}")

# %% the week after the last one does not exist in the list
print(weeks[len(weeks)])

# %% best and worst week, week-over-week change
values = [weekly[k] for k in weeks]
changes = [(weeks[i], (values[i] - values[i - 1]) / values[i - 1] * 100) for i in range(1, len(values))]
best = max(changes, key=lambda c: c[1])
worst = min(changes, key=lambda c: c[1])
print(f"biggest jump: W{best[0][1]:02d} {best[1]:+.1f}%")
print(f"biggest drop: W{worst[0][1]:02d} {worst[1]:+.1f}%")
print(f"Q2 total EUR {sum(values):,.2f}, mean/week {statistics.fmean(values):,.2f}")

# %% submit
SUBMIT(
    flagged_orders=sorted(flagged),
    q2_weekly_eur={f"{y}-W{w:02d}": round(weekly[(y, w)], 2) for y, w in weeks},
    skipped_blank_quantity=len(skipped),
)
