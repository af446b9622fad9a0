# An RLM session over a ~2 MB server log: which service fails most, and when? Chunks by lines, fans out, submits.
# variables: context = log_lines(25_000)
# variables: query = "Which service produced the most 5xx responses, and what were its worst latencies?"
# %% peek at the context
print(f"type={type(context).__name__} chars={len(context):,}")
print(context[:400])
print("...")
print(context[-250:])

# %% line structure
lines = context.splitlines()
print(len(lines), "lines")
print(repr(lines[0]))
print(lines[0].split())

# %% parse every line into a dict
import re
from collections import Counter, defaultdict

LINE_RE = re.compile(
    r"^(?P<ts>\S+) (?P<level>[A-Z]+) (?P<service>\w+) (?P<msg>.*?) "
    r"user=(?P<user>\w+) latency_ms=(?P<latency>\d+) status=(?P<status>\d{3})$"
)
parsed = []
bad = []
for i, line in enumerate(lines):
    m = LINE_RE.match(line)
    if m:
        parsed.append(m.groupdict())
    else:
        bad.append(i)
print(f"parsed {len(parsed)} lines, {len(bad)} unparsed")
print(parsed[0])

# %% tally levels and statuses
levels = Counter(p["level"] for p in parsed)
statuses = Counter(p["status"] for p in parsed)
print(levels.most_common())
print(sorted(statuses.items()))
errors_by_service = Counter(p["service"] for p in parsed if p["status"].startswith("5"))
print(errors_by_service.most_common())

# %% worst latency per service - first try
worst = defaultdict(list)
for p in parsed:
    worst[p["service"]].append(p["latency"])
for svc, lats in sorted(worst.items()):
    print(svc, max(lats), "ms, mean", sum(lats) / len(lats))

# %% latencies were strings: convert first
for p in parsed:
    p["latency"] = int(p["latency"])
    p["status"] = int(p["status"])
by_service: dict[str, list[int]] = defaultdict(list)
for p in parsed:
    by_service[p["service"]].append(p["latency"])
for svc in sorted(by_service):
    lats = sorted(by_service[svc])
    p95 = lats[int(0.95 * (len(lats) - 1))]
    print(f"{svc:<7} n={len(lats):>5} max={lats[-1]:>5} p95={p95:>5} mean={sum(lats)/len(lats):.1f}")

# %% chunk the log by lines for the sub-LLM
CHUNK = 2_500
chunks = ["\n".join(lines[i:i + CHUNK]) for i in range(0, len(lines), CHUNK)]
print(len(chunks), [len(c) for c in chunks][:4], "chars each (first 4)")
print(chunks[-1].splitlines()[-1][:60])

# %% fan out: ask how many 500s each chunk has
prompts = [
    f"Here is part {k + 1}/{len(chunks)} of a server log.\nHow many lines have status=500?\n\n{chunk}"
    for k, chunk in enumerate(chunks)
]
answers = llm_query_batched(prompts)
print(answers)

# %% the sub-LLM answers do not match the local tally - check
local = [sum(1 for ln in c.splitlines() if ln.endswith("status=500")) for c in chunks]
print("local:", local)
llm_counts = [int(a) for a in answers]
print("llm  :", llm_counts)
print("agree:", all(a == b for a, b in zip(local, llm_counts)))

# %% zoom in on the worst service with a single sub-query
top_service, top_errors = errors_by_service.most_common(1)[0]
worst_lines = sorted(
    (p for p in parsed if p["service"] == top_service and p["status"] == 500),
    key=lambda p: p["latency"],
    reverse=True,
)[:5]
excerpt = "\n".join(f"{p['ts']} {p['user']} {p['latency']}ms" for p in worst_lines)
print(excerpt)
summary = llm_query(f"Summarise the slowest failing requests of {top_service}:\n{excerpt}")
print(summary)

# %% hourly error histogram for the worst service
hours = Counter(p["ts"][11:13] for p in parsed if p["service"] == top_service and p["status"] >= 500)
peak_hour, peak_n = max(hours.items(), key=lambda kv: (kv[1], kv[0]))
print(" ".join(f"{h}:{n}" for h, n in sorted(hours.items())))
print("peak", peak_hour, peak_n)

# %% submit
SUBMIT(
    service=top_service,
    errors_5xx=top_errors,
    worst_latencies_ms=[p["latency"] for p in worst_lines],
    peak_hour_utc=f"{peak_hour}:00",
    total_lines=len(lines),
)
