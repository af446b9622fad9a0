# CodeAct incident review over a ~400 KB server log: regex parsing, latency percentiles, error windows, runbook search, directory lookups.
# variables: logs = log_lines(5000)
# variables: ask = "Which service had the worst error rate, when was the worst 30-minute window, and what does the runbook say to do?"
# %% look at the log
print(f"{len(logs):,} chars")
lines = logs.splitlines()
print(len(lines))
print("\n".join(lines[:3]))
print(lines[-1])

# %% parse with a regex
import re
LINE = re.compile(
    r"^(?P<ts>\S+) (?P<level>[A-Z]+) (?P<service>\w+) request done "
    r"user=(?P<user>\w+) latency_ms=(?P<latency>\d+) status=(?P<status>\d{3})$"
)
m = LINE.match(lines[0])
print(m.groupdict())
bad = LINE.match("garbage line")
print(bad.group("service"))

# %% parse everything, count failures
from datetime import datetime
entries = []
unparsed = 0
for line in lines:
    if (m := LINE.match(line)) is None:
        unparsed += 1
        continue
    d = m.groupdict()
    d["ts"] = datetime.strptime(d["ts"], "%Y-%m-%dT%H:%M:%SZ")
    d["latency"] = int(d["latency"])
    d["status"] = int(d["status"])
    entries.append(d)
print(len(entries), "parsed,", unparsed, "unparsed")
print(entries[0]["ts"], "->", entries[-1]["ts"], "=", entries[-1]["ts"] - entries[0]["ts"])

# %% per-service error rates and latency percentiles
import statistics
from collections import defaultdict
by_service = defaultdict(list)
for e in entries:
    by_service[e["service"]].append(e)

def pct(values: list[int], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]

summary = {}
for svc, es in sorted(by_service.items()):
    lat = [e["latency"] for e in es]
    errors = sum(e["status"] >= 500 for e in es)
    summary[svc] = {"requests": len(es), "5xx": errors, "rate": errors / len(es), "p50": pct(lat, 50), "p95": pct(lat, 95), "p99": pct(lat, 99)}
print(f"{'service':<8}{'reqs':>6}{'5xx':>6}{'rate':>8}{'p50':>8}{'p95':>8}{'p99':>8}")
for svc, s in summary.items():
    print(f"{svc:<8}{s['requests']:>6}{s['5xx']:>6}{s['rate']:>8.2%}{s['p50']:>8.1f}{s['p95']:>8.1f}{s['p99']:>8.1f}")
worst_service = max(summary, key=lambda s: summary[s]["rate"])
print("worst:", worst_service)

# %% level vs status cross-tab
from collections import Counter
cross = Counter((e["level"], e["status"]) for e in entries)
levels = sorted({lvl for lvl, _ in cross})
statuses = sorted({st for _, st in cross})
print("level  " + "".join(f"{s:>7}" for s in statuses))
for lvl in levels:
    print(f"{lvl:<7}" + "".join(f"{cross[(lvl, s)]:>7}" for s in statuses))

# %% worst 30-minute window for the worst service (sliding over 5xx timestamps)
from datetime import timedelta
from bisect import bisect_left
window = timedelta(minutes=30)
fails = [e["ts"] for e in by_service[worst_service] if e["status"] >= 500]
best_i, best_n = 0, 0
for i, t in enumerate(fails):
    j = bisect_left(fails, t + window)
    if j - i > best_n:
        best_i, best_n = i, j - i
w_start = fails[best_i]
print(f"{best_n} x 5xx in {worst_service} between {w_start:%Y-%m-%d %H:%M:%S} and {w_start + window:%H:%M:%S}")

# %% who was affected in that window; the log users are not in the directory
affected = sorted({e["user"] for e in by_service[worst_service] if w_start <= e["ts"] < w_start + window and e["status"] >= 500})
print(affected)
directory_find_user(affected[0])
# differs: a tool error's message is prefixed "tool 'name' failed with KeyError: ..."

# %% handle lookups that fail
resolved, unknown = {}, []
for u in affected:
    try:
        resolved[u] = directory_find_user(u)["email"]
    except (KeyError, ValueError):
        unknown.append(u)
print("resolved:", resolved)
print("not in directory:", unknown)

# %% runbooks for the worst service
query = f"{worst_service} service outage 500 errors"
hits = docs_search_ranked(query, top_k=3)
for h in hits:
    print(f"{h['score']:>7.3f} {h['doc_id']} {h['title']}")
runbook = docs_fetch_document(hits[0]["doc_id"])
import textwrap
print(textwrap.fill(runbook["body"], width=70, initial_indent="> ", subsequent_indent="> "))

# %% the top hit is the auth runbook; prefer a document that names the service
named = [h for h in hits if worst_service in h["title"].lower()]
print([h["doc_id"] for h in named])
if named:
    runbook = docs_fetch_document(named[0]["doc_id"])
print(runbook["doc_id"], "-", runbook["title"])
print(textwrap.shorten(runbook["body"], width=90, placeholder=" [...]"))

# %% submit the incident summary
s = summary[worst_service]
report = (
    f"Worst service: {worst_service} ({s['5xx']}/{s['requests']} = {s['rate']:.1%} 5xx, p95 {s['p95']:.0f} ms). "
    f"Worst window: {w_start:%Y-%m-%d %H:%M}Z + 30 min with {best_n} errors, {len(affected)} users affected. "
    f"Runbook {runbook['doc_id']}: {runbook['body'].split('. ')[1]}"
)
print(report)
SUBMIT(report=report, window_start=w_start.isoformat(), errors_in_window=best_n, runbook=runbook["doc_id"])
