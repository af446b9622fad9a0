# CodeAct: quote shipping for customer carts: weights from the catalogue, lb -> kg, parcels split at 30 kg, retries on bad country codes.
# variables: carts = [{"customer": "Greta", "country": "DE", "currency": "EUR", "items": {"SKU-1003": 2, "SKU-1018": 1, "SKU-1040": 3}}, {"customer": "Oliver", "country": "UK", "currency": "GBP", "items": {"SKU-1001": 1, "SKU-1022": 4}}, {"customer": "Hiro", "country": "JP", "currency": "JPY", "items": {"SKU-1007": 1, "SKU-1033": 2, "SKU-1045": 1, "SKU-1059": 2}}, {"customer": "Ana", "country": "BR", "currency": "BRL", "items": {"SKU-1012": 1}}]
# %% the carts
for cart in carts:
    print(cart["customer"], cart["country"], sum(cart["items"].values()), "items")

# %% weights from the catalogue
skus = sorted({sku for cart in carts for sku in cart["items"]})
catalog = {sku: catalog_get_product(sku) for sku in skus}
for sku, p in catalog.items():
    print(f"{sku}  {p['weight_lb']:>5.1f} lb  {p['name']}")

# %% a cart class
from dataclasses import dataclass

@dataclass
class Cart:
    customer: str
    country: str
    currency: str
    items: dict

    @property
    def weight_lb(self) -> float:
        return round(sum(catalog[sku]["weight_lb"] * qty for sku, qty in self.items.items()), 2)

    @property
    def weight_kg(self) -> float:
        return units_convert(self.weight_lb, "lb", "kg")

cart_objs = [Cart(**c) for c in carts]
for c in cart_objs:
    print(f"{c.customer:<7} {c.weight_lb:>7.2f} lb = {c.weight_kg:>7.3f} kg")

# %% quote each cart as one parcel
quotes = {}
for c in cart_objs:
    try:
        quotes[c.customer] = shipping_quote_cost(c.weight_kg, c.country)
    except ValueError:
        print(f"{c.customer}: too heavy for one parcel ({c.weight_kg} kg)")
    except KeyError:
        print(f"{c.customer}: bad country code {c.country!r}")
quotes

# %% fix the ISO code (UK -> GB)
ISO_FIX = {"UK": "GB", "EN": "GB", "USA": "US"}
for c in cart_objs:
    c.country = ISO_FIX.get(c.country, c.country)
print([c.country for c in cart_objs])

# %% split heavy carts into parcels of at most 30 kg (greedy by item)
import math

def parcels_for(c: Cart, limit: float = 30.0) -> list[float]:
    units = []
    for sku, qty in c.items.items():
        units += [units_convert(catalog[sku]["weight_lb"], "lb", "kg")] * qty
    units.sort(reverse=True)
    boxes: list[float] = []
    for w in units:
        for i, b in enumerate(boxes):
            if b + w <= limit:
                boxes[i] = round(b + w, 3)
                break
        else:
            boxes.append(round(w, 3))
    return boxes

plan = {c.customer: parcels_for(c) for c in cart_objs}
plan

# %% quote every parcel, standard and express
from decimal import Decimal
rows = []
for c in cart_objs:
    for service in ("standard", "express"):
        qs = [shipping_quote_cost(w, c.country, service) for w in plan[c.customer]]
        rows.append({
            "customer": c.customer,
            "service": service,
            "parcels": len(qs),
            "usd": sum(Decimal(str(q["cost_usd"])) for q in qs),
            "days": max(q["days"] for q in qs),
        })
for r in rows:
    print(f"{r['customer']:<7} {r['service']:<9} {r['parcels']} parcel(s) ${r['usd']:>8} {r['days']:>2} days")

# %% pick a service per customer with match
def choose(customer_rows: list[dict]) -> dict:
    std, exp = sorted(customer_rows, key=lambda r: r["service"] != "standard")
    match (std["days"], exp["usd"] - std["usd"]):
        case (d, extra) if d >= 9 and extra < 60:
            return exp
        case (d, _) if d <= 3:
            return std
        case (_, extra) if extra < 15:
            return exp
        case _:
            return std

chosen = {}
for name in [c.customer for c in cart_objs]:
    chosen[name] = choose([r for r in rows if r["customer"] == name])
    print(name, "->", chosen[name]["service"], chosen[name]["usd"])

# %% price shipping in the customer's currency
for c in cart_objs:
    usd = chosen[c.customer]["usd"]
    local = fx_convert_currency(usd, "USD", c.currency)
    print(f"{c.customer:<7} {usd:>8} USD = {local['amount']:>10} {c.currency}")
# differs: a Decimal argument to a tool is refused at the bridge (TypeError naming the argument) instead of reaching the tool

# %% Decimal cannot cross into the tool; convert to float first
converted = {c.customer: fx_convert_currency(float(chosen[c.customer]["usd"]), "USD", c.currency) for c in cart_objs}
summary = [
    {"customer": c.customer, "service": chosen[c.customer]["service"], "parcels": chosen[c.customer]["parcels"],
     "cost": f"{converted[c.customer]['amount']:,.2f} {c.currency}", "eta_days": chosen[c.customer]["days"]}
    for c in cart_objs
]
for s in summary:
    print(s)

# %% submit
SUBMIT(quotes=summary)
