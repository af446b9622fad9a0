# CodeAct: page through the orders API, convert every line to USD, and report revenue by month and customer.
# variables: question = "What was paid revenue in USD per month in 2024, who are the top 3 customers, and how much did coupons cost us?"
# %% first page
page = orders_fetch_page()
print(page.keys())
print(page["total"], page["next_page"], len(page["items"]))
print(page["items"][0])

# %% try big pages to save calls
try:
    big = orders_fetch_page(page=1, page_size=500)
except ValueError as e:
    print("error:", e)
# differs: a tool error's message is prefixed "tool 'name' failed with ValueError: ..."

# %% page through with the maximum allowed page size
orders: list[dict] = []
next_page = 1
calls = 0
while next_page is not None:
    resp = orders_fetch_page(page=next_page, page_size=100)
    orders.extend(resp["items"])
    next_page = resp["next_page"]
    calls += 1
print(f"{len(orders)} orders in {calls} calls")
assert len(orders) == resp["total"]
assert len({o["order_id"] for o in orders}) == len(orders)

# %% status breakdown
from collections import Counter
status_counts = Counter(o["status"] for o in orders)
print(status_counts.most_common())
print(Counter(len(o["lines"]) for o in orders))
print(Counter(o["coupon"] for o in orders))

# %% rates once, then Decimal money
from decimal import Decimal, ROUND_HALF_UP
rates = fx_list_rates("USD")
print(rates)
CENT = Decimal("0.01")

def line_usd(line: dict) -> Decimal:
    amount = Decimal(str(line["unit_price"])) * line["qty"]
    return (amount / Decimal(str(rates[line["currency"]]))).quantize(CENT, rounding=ROUND_HALF_UP)

print(orders[0]["lines"][0], line_usd(orders[0]["lines"][0]))

# %% coupons and order totals
COUPONS = {"SPRING10": Decimal("0.10"), "VIP20": Decimal("0.20")}
def order_total(o: dict) -> tuple[Decimal, Decimal]:
    gross = sum((line_usd(l) for l in o["lines"]), Decimal("0"))
    discount = (gross * COUPONS.get(o["coupon"], Decimal(0))).quantize(CENT, rounding=ROUND_HALF_UP)
    return gross - discount, discount

paid = [o for o in orders if o["status"] == "paid"]
totals = {o["order_id"]: order_total(o) for o in paid}
print(len(paid), sum(t for t, _ in totals.values()), sum(d for _, d in totals.values()))

# %% revenue per month
from collections import defaultdict
from datetime import datetime
by_month: defaultdict[str, Decimal] = defaultdict(Decimal)
for o in paid:
    month = datetime.fromisoformat(o["created"].replace("Z", "+00:00")).strftime("%Y-%m")
    by_month[month] += totals[o["order_id"]][0]
for month in sorted(by_month):
    bar = "#" * int(by_month[month] / 2000)
    print(f"{month}  {by_month[month]:>12,.2f}  {bar}")

# %% check the raw aggregate before formatting
by_month

# %% compare with fromisoformat directly on the Z suffix (fine on 3.11+)
datetime.fromisoformat(orders[0]["created"])

# %% top customers
per_customer = defaultdict(lambda: {"orders": 0, "revenue": Decimal("0")})
for o in paid:
    c = per_customer[o["customer"]]
    c["orders"] += 1
    c["revenue"] += totals[o["order_id"]][0]
top3 = sorted(per_customer.items(), key=lambda kv: kv[1]["revenue"], reverse=True)[:3]
for rank, (name, c) in enumerate(top3, 1):
    print(f"{rank}. {name:<10} {c['orders']:>3} orders  ${c['revenue']:>11,.2f}  avg ${c['revenue'] / c['orders']:,.2f}")

# %% refunds cross-check via the status filter
refunded = orders_fetch_page(status="refunded", page_size=100)
print(refunded["total"], status_counts["refunded"], refunded["total"] == status_counts["refunded"])
refund_usd = sum(order_total(o)[0] for o in refunded["items"])
print(f"refunded: ${refund_usd:,.2f}")

# %% submit
coupon_cost = sum(d for _, d in totals.values())
SUBMIT(
    revenue_by_month={m: str(v) for m, v in sorted(by_month.items())},
    top_customers=[name for name, _ in top3],
    coupon_cost_usd=str(coupon_cost),
    paid_orders=len(paid),
)
