# CodeAct: search the catalogue by category, build a restock plan with enums, dataclasses and batched tool calls, report as JSON and markdown.
# variables: budget_usd = 40000
# variables: categories = ["kitchen", "outdoor", "toys", "garden"]
# %% search each category
from itertools import batched
for cat in categories:
    try:
        hits = catalog_search_products(cat, category=cat, max_results=25)
        print(f"{cat:<8} {len(hits):>2} hits, best {hits[0]['sku']} score={hits[0]['score']}")
    except ValueError:
        print(f"{cat:<8} not a category")

# %% fetch full records in batches of 5 ids (a pattern for rate-limited APIs)
wanted = [h["sku"] for cat in categories[:3] for h in catalog_search_products(cat, category=cat, max_results=25)]
print(len(wanted), wanted[:6])
products = []
for batch in batched(wanted, 5):
    products.extend(catalog_get_product(sku) for sku in batch)
print(len(products), f"{products[0]['sku']=}", f"{len(batch)=}")

# %% restock urgency as an Enum
from enum import Enum, auto

class Urgency(Enum):
    OUT = auto()
    LOW = auto()
    OK = auto()

    @classmethod
    def of(cls, stock: int) -> "Urgency":
        if stock == 0:
            return cls.OUT
        return cls.LOW if stock < 30 else cls.OK

counts = {u.name: sum(1 for p in products if Urgency.of(p["stock"]) is u) for u in Urgency}
print(counts)
print(Urgency.of(0), repr(Urgency.LOW), Urgency["OK"].value, list(Urgency)[-1])

# %% restock lines as dataclasses, priced in USD
from dataclasses import dataclass, asdict, field
rates = fx_list_rates("USD")

@dataclass
class Line:
    sku: str
    name: str
    urgency: Urgency
    qty: int
    unit_usd: float
    notes: list[str] = field(default_factory=list)

    @property
    def cost(self) -> float:
        return round(self.qty * self.unit_usd, 2)

lines: list[Line] = []
for p in products:
    u = Urgency.of(p["stock"])
    if u is Urgency.OK:
        continue
    unit = round(p["price"] / rates[p["currency"]], 2)
    qty = 40 - p["stock"] if u is Urgency.LOW else 50
    line = Line(p["sku"], p["name"], u, qty, unit)
    if p["rating"] < 3.0:
        line.notes.append("low rating")
    lines.append(line)
lines.sort(key=lambda l: (l.urgency.value, -l.cost))
for l in lines[:5]:
    print(l)

# %% asdict with an Enum inside does not serialise
import json
json.dumps([asdict(l) for l in lines[:2]])

# %% serialise with a default hook
def encode(o):
    if isinstance(o, Enum):
        return o.name
    raise TypeError(f"cannot encode {type(o).__name__}")

print(json.dumps([asdict(l) | {"cost": l.cost} for l in lines[:2]], default=encode, indent=2, sort_keys=True))

# %% fit the budget greedily: out-of-stock first, then low stock
spent = 0.0
plan, dropped = [], []
for l in lines:
    if spent + l.cost <= budget_usd:
        plan.append(l)
        spent += l.cost
    elif (fit := int((budget_usd - spent) // l.unit_usd)) >= 5:
        l.notes.append(f"reduced from {l.qty}")
        l.qty = fit
        plan.append(l)
        spent += l.cost
    else:
        dropped.append(l.sku)
print(f"{len(plan)} lines, ${spent:,.2f} of ${budget_usd:,}, dropped {len(dropped)}")

# %% markdown table
header = f"| {'SKU':<8} | {'Product':<20} | {'Urgency':<7} | {'Qty':>4} | {'Cost USD':>10} | Notes |"
sep = "|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|"
rows = [header, sep]
for l in plan:
    rows.append(f"| {l.sku:<8} | {l.name:<20} | {l.urgency.name:<7} | {l.qty:>4} | {l.cost:>10,.2f} | {', '.join(l.notes) or '-'} |")
markdown = "\n".join(rows)
print(markdown)

# %% pairs of consecutive plan lines with the biggest cost gap
from itertools import pairwise
gaps = sorted(((a.sku, b.sku, round(a.cost - b.cost, 2)) for a, b in pairwise(plan) if a.urgency == b.urgency), key=lambda g: -abs(g[2]))
print(gaps[:3])
by_urgency = {u.name: [l.sku for l in plan if l.urgency is u] for u in (Urgency.OUT, Urgency.LOW)}
print(f"{by_urgency["OUT"][:3]} ... {len(by_urgency["LOW"])} low-stock lines")

# %% submit
SUBMIT(
    plan=[{"sku": l.sku, "qty": l.qty, "cost_usd": l.cost, "urgency": l.urgency.name} for l in plan],
    total_usd=round(spent, 2),
    dropped=dropped,
    markdown=markdown,
)
