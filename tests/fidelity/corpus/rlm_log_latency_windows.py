# An RLM session over an 8000-line log: 15-minute windows, percentiles, anomaly windows sent to the sub-LLM one at a time.
# variables: context = log_lines(8000, seed=23)
# variables: query = "Find the time windows where latency was abnormally high and explain them."
# %% peek and count
print(len(context), context.count("\n") + 1)
for line in context.splitlines()[:3]:
    print(line)

# %% quick regex for the latencies
import re
lat_all = [int(x) for x in re.findall("latency_ms=(\d+)", context)]
print(len(lat_all), min(lat_all), max(lat_all), sum(lat_all) // len(lat_all))

# %% parse key=value pairs generically
def parse(line: str) -> dict:
    ts, level, service, *rest = line.split()
    kv = dict(part.split("=", 1) for part in rest if "=" in part)
    return {"ts": ts, "level": level, "service": service, **kv}

rows = [parse(l) for l in context.splitlines()]
print(rows[0])
print(sorted(rows[0]))

# %% window by 15 minutes
from datetime import datetime, timedelta

def window(ts: str) -> str:
    t = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")
    start = t.replace(minute=t.minute - t.minute % 15, second=0)
    return start.strftime("%m-%d %H:%M")

from collections import defaultdict
windows = defaultdict(list)
for r in rows:
    windows[window(r["ts"])].append(int(r["latency_ms"]))
keys = sorted(windows)
print(len(keys), keys[:3], keys[-1])
print({k: len(windows[k]) for k in keys[:4]})

# %% percentiles per window
import statistics
summary = {}
for k in keys:
    lat = windows[k]
    qs = statistics.quantiles(lat, n=20)
    summary[k] = {"n": len(lat), "p50": statistics.median(lat), "p95": qs[18], "max": max(lat)}
print(summary[keys[0]])

# %% which windows stand out? z-score of the p95 values
p95s = [summary[k]["p95"] for k in keys]
mu, sd = statistics.fmean(p95s), statistics.pstdev(p95s)
print(f"mean p95 {mu:.1f}, sd {sd:.1f}")
anomalies = [k for k in keys if (summary[k]["p95"] - mu) / sd > 1.5]
print(anomalies)

# %% rank windows by z-score instead, keep the top three
scored = sorted(((summary[k]["p95"] - mu) / sd, k) for k in keys)
for z, k in scored[-5:]:
    print(f"{k}  z={z:+.2f}  p95={summary[k]['p95']:.1f}")
anomalies = [k for z, k in scored[-3:]]

# %% send each anomalous window's raw lines to the sub-LLM separately
raw_by_window = defaultdict(list)
for line, r in zip(context.splitlines(), rows):
    raw_by_window[window(r["ts"])].append(line)
explanations = {}
for k in anomalies:
    text = "\n".join(raw_by_window[k])
    explanations[k] = llm_query(f"Explain why latency was high in this window ({k}):\n{text}")
    print(k, "->", explanations[k])

# %% error share in those windows vs overall
def error_share(lines: list[str]) -> float:
    return sum(" status=500" in l for l in lines) / len(lines)

overall = error_share(context.splitlines())
for k in anomalies:
    print(k, f"{error_share(raw_by_window[k]):.1%} vs {overall:.1%} overall")

# %% slowest users inside the anomalies
from collections import Counter
users = Counter()
for k in anomalies:
    for line in raw_by_window[k]:
        r = parse(line)
        if int(r["latency_ms"]) > 2000:
            users[r["user"]] += 1
print(users.most_common(3))
print(users["nobody"], "for a missing user")

# %% the report: rounded floats and plain dicts
report_ = [
    {"window": k, "p95_ms": round(summary[k]["p95"], 1), "requests": summary[k]["n"],
     "errors_pct": round(100 * error_share(raw_by_window[k]), 1)}
    for k in anomalies
]
print(report_)
SUBMIT(anomalies=report_, baseline_p95=round(mu, 1), explanation=explanations[anomalies[-1]])
