# CodeAct: plan a trip by querying the weather tool for several cities over a date range, handling bad dates and unknown cities.
# variables: request = {"cities": ["Lisbon", "Madrid", "Sao Paulo", "Reykjavik", "Tokyo"], "start": "2024-06-10", "days": 7, "prefer": "warm and dry"}
# %% inspect the request
print(request)
for key, value in request.items():
    print(f"{key:>7}: {value!r}")

# %% try one call, US-style date first
try:
    print(weather_by_city_date("Lisbon", "06/10/2024"))
except ValueError as e:
    print("bad date format:", e)
# differs: a tool error's message is prefixed "tool 'name' failed with ValueError: ..."

# %% build the ISO dates with datetime
from datetime import date, timedelta
start = date.fromisoformat(request["start"])
dates = [(start + timedelta(days=i)).isoformat() for i in range(request["days"])]
print(dates)
print(start.strftime("%A %d %B %Y"), "->", (start + timedelta(days=request["days"] - 1)).strftime("%a %d %b"))
weather_by_city_date("Lisbon", dates[0])

# %% query every city and day, collecting failures
from collections import defaultdict
forecasts: dict[str, list[dict]] = defaultdict(list)
missing: set[str] = set()
for city in request["cities"]:
    for d in dates:
        try:
            forecasts[city].append(weather_by_city_date(city, d))
        except KeyError:
            missing.add(city)
            break
print({c: len(v) for c, v in forecasts.items()})
print("no station:", sorted(missing))

# %% Sao Paulo has no station; try nearby Buenos Aires instead
alternatives = {"Sao Paulo": "Buenos Aires", "São Paulo": "Buenos Aires"}
for city in sorted(missing):
    alt = alternatives.get(city)
    if alt is None:
        print(f"no alternative for {city}")
        continue
    forecasts[alt] = [weather_by_city_date(alt, d) for d in dates]
    print(f"{city} -> {alt}: {len(forecasts[alt])} days")
del forecasts["Sao Paulo"]

# %% summarise per city with a dataclass
from dataclasses import dataclass, field
import statistics

@dataclass(order=True)
class CitySummary:
    score: float
    city: str = field(compare=False)
    mean_high: float = field(compare=False)
    rain_days: int = field(compare=False)
    total_precip: float = field(compare=False)
    conditions: list[str] = field(default_factory=list, compare=False)

def summarise(city: str, days: list[dict]) -> CitySummary:
    highs = [d["high_c"] for d in days]
    rain = [d for d in days if d["precip_mm"] > 0]
    mean_high = round(statistics.mean(highs), 1)
    total = round(sum(d["precip_mm"] for d in days), 1)
    # warm and dry: reward highs near 26C, punish rainy days
    score = round(10 - abs(mean_high - 26) * 0.5 - len(rain) * 1.2 - total * 0.05, 2)
    return CitySummary(score, city, mean_high, len(rain), total, [d["condition"] for d in days])

summaries = sorted((summarise(c, days) for c, days in forecasts.items()), reverse=True)
for s in summaries:
    print(s)

# %% a daily table for the best city
best = summaries[0]
print(f"Best: {best.city} (score {best.score})")
print(f"{'date':<12}{'day':<5}{'high':>6}{'low':>6}  {'condition':<15}{'rain':>6}")
for d in forecasts[best.city]:
    day = date.fromisoformat(d["date"]).strftime("%a")
    print(f"{d['date']:<12}{day:<5}{d['high_c']:>6.1f}{d['low_c']:>6.1f}  {d['condition']:<15}{d['precip_mm']:>5.1f}mm")

# %% find the longest dry streak in each city with itertools.groupby
from itertools import groupby
def longest_dry(days: list[dict]) -> int:
    runs = [len(list(g)) for dry, g in groupby(days, key=lambda d: d["precip_mm"] == 0) if dry]
    return max(runs, default=0)

streaks = {s.city: longest_dry(forecasts[s.city]) for s in summaries}
print(streaks)
print(max(streaks, key=streaks.get))

# %% oops: the summary objects are not subscriptable
summaries[0]["city"]

# %% submit the ranking
ranking = [f"{i}. {s.city}: {s.mean_high}C mean high, {s.rain_days} rainy day(s), {s.total_precip}mm" for i, s in enumerate(summaries, 1)]
print("\n".join(ranking))
SUBMIT(best_city=best.city, ranking=ranking, substituted={"Sao Paulo": "Buenos Aires"})
