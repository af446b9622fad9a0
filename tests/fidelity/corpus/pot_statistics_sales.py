# ProgramOfThought answering statistics questions about a 250 KB sales export: statistics, quantiles, groupby, Decimal totals.
# variables: context = sales_csv(5000)
# %% look at the data
print(len(context), context.count("\n"))
print(context[:250])

# %% parse with csv
import csv, io
rows = list(csv.DictReader(io.StringIO(context)))
print(len(rows), rows[0])
print(sorted(rows[0].keys()))

# %% quantities as ints (mistake: some are blank)
quantities = [int(r["quantity"]) for r in rows]

# %% fix: skip blanks and normalise regions
clean = []
for r in rows:
    if not r["quantity"].strip():
        continue
    clean.append({**r, "quantity": int(r["quantity"]), "unit_price": float(r["unit_price"]), "region": r["region"].strip().lower()})
print(len(clean), len(rows) - len(clean), "rows without quantity")
print(sorted({r["region"] for r in clean}))

# %% descriptive statistics of unit price
import statistics as st
prices = [r["unit_price"] for r in clean]
print(f"mean={st.mean(prices):.4f} median={st.median(prices)} stdev={st.stdev(prices):.4f} pstdev={st.pstdev(prices):.4f}")
print(f"variance={st.variance(prices):.3f} pvariance={st.pvariance(prices):.3f} fmean={st.fmean(prices):.6f}")
print("quartiles:", st.quantiles(prices, n=4), "deciles:", [round(q, 2) for q in st.quantiles(prices, n=10)])
print(st.quantiles(prices, n=4, method="inclusive"), min(prices), max(prices))

# %% modes and medians of quantities
qty = [r["quantity"] for r in clean]
print(st.mode(qty), st.multimode(qty), st.median_low(qty), st.median_high(qty), st.median([1, 2, 3, 4]), st.median_grouped(qty))
print(st.mean(qty), type(st.mean(qty)).__name__, st.mean([1, 2, 3, 4]), st.harmonic_mean([40, 60]), round(st.geometric_mean([2, 8]), 9))

# %% revenue per region with groupby
from itertools import groupby, accumulate
from operator import itemgetter
by_region = sorted(clean, key=itemgetter("region"))
revenue: dict[str, float] = {}
for region, group in groupby(by_region, key=itemgetter("region")):
    revenue[region] = round(sum(r["quantity"] * r["unit_price"] for r in group), 2)
for region, total in sorted(revenue.items(), key=lambda kv: -kv[1]):
    print(f"{region:<6} {total:>14,.2f} {total / sum(revenue.values()):>7.2%}")

# %% exact totals with Decimal (float sum vs decimal sum)
from decimal import Decimal
exact = sum(Decimal(r["quantity"]) * Decimal(r["unit_price"]) for r in rows if r["quantity"].strip())
approx = sum(r["quantity"] * r["unit_price"] for r in clean)
print(exact, approx, f"{approx:.2f}", Decimal(f"{approx:.2f}") == exact, round(approx, 2) == float(exact))

# %% monthly running total
monthly = {}
for r in clean:
    month = r["date"][:7]
    monthly[month] = monthly.get(month, 0) + r["quantity"]
months = sorted(monthly)
running = list(accumulate(monthly[m] for m in months))
for m, units, cum in zip(months, (monthly[m] for m in months), running):
    print(m, f"{units:>5}", f"{cum:>6}", "#" * (units // 200))

# %% statistics on an empty selection
refunds = [r["unit_price"] for r in clean if r["notes"].strip() == "refund"]
st.mean(refunds)

# %% stdev needs two points
for sample in ([], [5.0], [5.0, 7.0], [2, 4, 4, 4, 5, 5, 7, 9]):
    try:
        print(sample, st.stdev(sample), st.pstdev(sample))
    except st.StatisticsError as e:
        print(sample, "StatisticsError:", e)

# %% correlation between quantity and price, and a z-score outlier check
print(round(st.correlation(qty, prices), 6), st.covariance([1, 2, 3], [1, 2, 5]))
fit = st.linear_regression([1, 2, 3, 4], [2, 4, 5, 8])
print(fit, round(fit.slope, 4))
mu, sigma = st.mean(prices), st.stdev(prices)
z = [(p - mu) / sigma for p in prices]
print(sum(1 for v in z if abs(v) > 1.7), round(max(z), 3), round(min(z), 3))
nd = st.NormalDist(mu=100, sigma=15)
print(round(nd.cdf(130), 6), round(nd.inv_cdf(0.975), 4), nd, round(nd.pdf(100), 6))

# %% submit the answer
top = max(revenue, key=revenue.get)
SUBMIT(top_region=top, revenue=revenue[top], median_price=st.median(prices), total=str(exact))
