# An RLM session whose context is a list of 4000 JSON records: scores per city, tags, missing values, fan-out per city.
# variables: context = records(4000, seed=17)
# variables: query = "Which city has the best average score, and what topics do its people care about?"
# %% what is the context?
print(type(context), len(context))
print(context[:3])
import json
print(len(json.dumps(context)), "chars as JSON")

# %% duplicates?
print(len(context), len(set(context)))

# %% dicts are unhashable: compare a frozen view of each record
def frozen(rec: dict) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in rec.items()))

print(len(context), len({frozen(r) for r in context}))
print(len({(r["name"], r["city"]) for r in context}), "distinct name/city pairs")

# %% key coverage
from collections import Counter
keys = Counter(k for rec in context for k in rec)
print(sorted(keys.items()))
print(Counter(type(rec.get("score")).__name__ for rec in context))

# %% try tags for everyone
all_tags = Counter(t for rec in context for t in rec["tags"])
print(all_tags.most_common(3))

# %% some records have no tags key: use .get
all_tags = Counter(t for rec in context for t in rec.get("tags", []))
print(all_tags.most_common())
no_tags = sum(1 for rec in context if "tags" not in rec)
empty_tags = sum(1 for rec in context if rec.get("tags") == [])
print(f"{no_tags} without the key, {empty_tags} with an empty list")

# %% rank the records by score
top10 = sorted(context, key=lambda r: r["score"], reverse=True)[:10]
print(top10)

# %% None scores cannot be compared: filter them out
scored = [r for r in context if r["score"] is not None]
top10 = sorted(scored, key=lambda r: (-r["score"], r["id"]))[:10]
for r in top10:
    print(r["id"], r["name"], r["city"], r["score"])
print(len(context) - len(scored), "records without a score")

# %% per-city statistics
import statistics
from itertools import groupby

by_city = sorted(scored, key=lambda r: r["city"])
stats: dict[str, dict] = {}
for city, group in groupby(by_city, key=lambda r: r["city"]):
    values = [r["score"] for r in group]
    stats[city] = {
        "n": len(values),
        "mean": round(statistics.mean(values), 2),
        "median": statistics.median(values),
        "stdev": round(statistics.stdev(values), 2),
    }
for city, s in sorted(stats.items(), key=lambda kv: -kv[1]["mean"]):
    print(f"{city:<6} {s}")

# %% quartiles and a best city
best_city = max(stats, key=lambda c: (stats[c]["mean"], c))
q = statistics.quantiles([r["score"] for r in scored if r["city"] == best_city], n=4)
print(best_city, q)

# %% fan out: one prompt per city with its people's tags
cities = sorted(stats)
prompts = []
for city in cities:
    tags = [t for r in context if r["city"] == city for t in r.get("tags", [])]
    prompts.append(f"City: {city}. Summarise which topics people here mention most:\n" + " ".join(tags))
replies = llm_query_batched(prompts)
for city, reply in zip(cities, replies):
    print(f"{city:<6} -> {reply}")

# %% parse the replies into top-topic lists
import re
topics_by_city = {}
for city, reply in zip(cities, replies):
    _, _, listing = reply.partition("): ")
    words = [m.group(1) for m in re.finditer(r"(\w+) x\d+", listing)]
    topics_by_city[city] = [w for w in words if w not in {"city", "summarise", "topics", "people", "here", "mention", "most", "which"} and w != city.lower()]
print(topics_by_city)

# %% cross-check the topics locally
local_topics = {}
for city in cities:
    c = Counter(t for r in context if r["city"] == city for t in r.get("tags", []))
    local_topics[city] = [t for t, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]
print(local_topics[best_city])

# %% submit
SUBMIT(
    best_city=best_city,
    mean_score=stats[best_city]["mean"],
    top_topics=local_topics[best_city],
    missing_scores=len(context) - len(scored),
)
