# CodeAct: price a shortlist of audio products in EUR with the catalogue and currency tools, Decimal money.
# variables: task = "Find the five best-rated audio products that are in stock, price each in EUR and give the total for one of each."
# variables: wanted_skus = ["SKU-1001", "SKU-1006", "SKU-1011", "SKU-1016", "SKU-1021", "SKU-1026", "SKU-1099", "sku-1031", "SKU-1036"]
# %% look at the task and one product
print(task)
sample = catalog_get_product("SKU-1001")
print(sample)
print(sorted(sample))

# %% fetch the candidate products, the bad ids fail
products = []
for sku in wanted_skus:
    products.append(catalog_get_product(sku))
print(len(products))
# differs: a tool error's message is prefixed "tool 'name' failed with KeyError: ..."

# %% catch the errors and keep going
products: list[dict] = []
failed: list[str] = []
for sku in wanted_skus:
    try:
        products.append(catalog_get_product(sku))
    except (KeyError, ValueError) as exc:
        failed.append(sku)
        print(f"skip {sku}: {type(exc).__name__}")
print(f"fetched {len(products)}, failed {failed}")

# %% retry the malformed one with a normalised id
for sku in failed:
    fixed = sku.strip().upper()
    if fixed == sku:
        print(f"{sku} is well-formed, really missing")
        continue
    try:
        products.append(catalog_get_product(fixed))
        print(f"recovered {fixed}")
    except KeyError:
        print(f"still missing: {fixed}")
print(len(products), [p["sku"] for p in products])

# %% keep audio products in stock, best rated first
audio = [p for p in products if p["category"] == "audio" and p["stock"] > 0]
audio.sort(key=lambda p: (-p["rating"], p["price"]))
for p in audio:
    print(f"{p['sku']:<9} {p['name']:<22} {p['rating']:>4} {p['price']:>10} {p['currency']} stock={p['stock']}")
shortlist = audio[:5]

# %% convert to EUR with the fx tool
from decimal import Decimal, ROUND_HALF_UP

def to_eur(price, currency: str) -> Decimal:
    if currency == "EUR":
        return Decimal(str(price))
    quote = fx_convert_currency(price, currency, "EUR")
    return Decimal(str(quote["amount"])).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)

eur_prices = {p["sku"]: to_eur(p["price"], p["currency"]) for p in shortlist}
eur_prices

# %% a lowercase currency code is rejected by the service
try:
    fx_convert_currency(10, "usd", "eur")
except ValueError:
    print("lowercase codes rejected, upper-casing")
    print(fx_convert_currency(10, "usd".upper(), "eur".upper()))

# %% table and total
total = sum(eur_prices.values(), Decimal("0"))
lines = [f"{'SKU':<9} | {'Product':<22} | {'EUR':>10}", "-" * 47]
for p in shortlist:
    lines.append(f"{p['sku']:<9} | {p['name']:<22} | {eur_prices[p['sku']]:>10,.2f}")
lines.append("-" * 47)
lines.append(f"{'TOTAL':<9} | {'':<22} | {total:>10,.2f}")
table = "\n".join(lines)
print(table)

# %% the answer as JSON
import json
answer = {
    "products": [{"sku": p["sku"], "name": p["name"], "rating": p["rating"], "price_eur": str(eur_prices[p["sku"]])} for p in shortlist],
    "total_eur": str(total),
    "skipped": sorted(set(failed) - {s.upper() for s in failed if s != s.upper()}),
}
print(json.dumps(answer, indent=2))

# %% submit
SUBMIT(answer=json.dumps(answer), table=table)
