# CodeAct: scale a US recipe to metric for 14 people with the unit tool, fractions for the quantities, catching bad conversions.
# variables: recipe_text = "Classic pancakes (serves 4)\n1 1/2 cup flour\n3 1/2 tsp baking powder\n1 tbsp sugar\n1/4 tsp salt\n1 1/4 cup milk\n1 egg\n3 tbsp butter, melted\n2 oz blueberries\nCook at 375 F on a griddle; batter rests 10 min.\n"
# %% read the recipe
lines = recipe_text.strip().splitlines()
title, ingredients, notes = lines[0], lines[1:-1], lines[-1]
print(title)
print(len(ingredients), "ingredients")
print(notes)

# %% parse quantities with fractions
import re
from fractions import Fraction

QTY = re.compile(r"^(?P<qty>\d+(?: \d+/\d+)?|\d+/\d+)\s+(?:(?P<unit>cup|tsp|tbsp|oz|lb)\s+)?(?P<item>.+)$")

def parse_qty(text: str) -> Fraction:
    return sum((Fraction(part) for part in text.split()), Fraction(0))

parsed = []
for line in ingredients:
    m = QTY.match(line)
    if not m:
        print("could not parse:", line)
        continue
    parsed.append({"qty": parse_qty(m["qty"]), "unit": m["unit"], "item": m["item"]})
for p in parsed:
    print(f"{str(p['qty']):>5} {p['unit'] or '-':<5} {p['item']}")

# %% scale from 4 to 14 servings
servings = int(re.search(r"serves (\d+)", title).group(1))
factor = Fraction(14, servings)
print(factor, float(factor))
scaled = [dict(p, qty=p["qty"] * factor) for p in parsed]
[(s["item"], s["qty"]) for s in scaled]

# %% convert with the tool: volumes to ml
metric = []
for s in scaled:
    if s["unit"] is None:
        metric.append((s["item"], float(s["qty"]), "pcs"))
        continue
    ml = units_convert(float(s["qty"]), s["unit"], "ml")
    metric.append((s["item"], ml, "ml"))
metric
# differs: a tool error's message is prefixed "tool 'name' failed with ValueError: ..."

# %% oz is a mass, not a volume
for s in scaled:
    if s["unit"] is None:
        continue
    target = "ml"
    try:
        value = units_convert(float(s["qty"]), s["unit"], target)
    except ValueError:
        target = "g"
        value = units_convert(float(s["qty"]), s["unit"], target)
    print(f"{s['item']:<22} {value:>9.1f} {target}")

# %% flour and sugar are better weighed: densities in g/ml
DENSITY = {"flour": 0.53, "sugar": 0.85, "baking powder": 0.9, "salt": 1.2, "milk": 1.03}
def to_metric(s: dict) -> tuple[str, float, str]:
    if s["unit"] is None:
        return s["item"], float(s["qty"]), "pcs"
    try:
        ml = units_convert(float(s["qty"]), s["unit"], "ml")
    except ValueError:
        return s["item"], units_convert(float(s["qty"]), s["unit"], "g"), "g"
    base = s["item"].split(",")[0]
    if base in DENSITY:
        return s["item"], ml * DENSITY[base], "g"
    return s["item"], ml, "ml"

metric = [to_metric(s) for s in scaled]
for item, value, unit in metric:
    print(f"{item:<22} {round(value):>6} {unit}")

# %% the eggs: 3.5 eggs is awkward
eggs = next(v for item, v, u in metric if item == "egg")
print(eggs, round(eggs), Fraction(eggs).limit_denominator(4))
print(math.ceil(eggs))

# %% forgot the import
import math
print(math.ceil(eggs), math.isclose(eggs, 3.5))

# %% temperatures and a unit the tool does not know
print(units_convert(375, "F", "C"))
for bad in [("F", "ml"), ("cup", "pint")]:
    try:
        units_convert(1, *bad)
    except (ValueError, KeyError) as e:
        print(bad, "->", type(e).__name__)

# %% final card
oven_c = round(units_convert(375, "F", "C") / 5) * 5
card = [f"{title.split(' (')[0]} (serves 14)", ""]
card += [f"- {round(v) if u != 'pcs' else math.ceil(v)} {u} {item}" for item, v, u in metric]
card += ["", f"Griddle at {oven_c} °C; rest the batter 10 min."]
print("\n".join(card))
SUBMIT("\n".join(card))
