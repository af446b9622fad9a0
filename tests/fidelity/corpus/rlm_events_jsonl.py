# An RLM session over a JSON-lines event dump: broken lines, nested meta, revenue per currency, funnels per user.
# variables: context = rlm_events_jsonl(6000)
# variables: query = "Net revenue per currency, the error rate by code, and how many users purchased after signing up?"
# %% peek
print(len(context))
print(context[:300])
lines = context.split("\n")
print(len(lines), "lines")

# %% parse everything with json.loads
import json
events = [json.loads(l) for l in lines]

# %% some lines are blank or cut: skip them but remember where
events, broken = [], []
for n, line in enumerate(lines, start=1):
    if not line.strip():
        broken.append((n, "blank"))
        continue
    try:
        events.append(json.loads(line))
    except json.JSONDecodeError as exc:
        broken.append((n, exc.msg))
print(len(events), "events;", len(broken), "skipped")
print(broken[:5])

# %% types
from collections import Counter
print(Counter(e["type"] for e in events).most_common())

# %% revenue per currency, refunds negative
from decimal import Decimal
net: dict[str, Decimal] = {}
for e in events:
    if e["type"] not in ("purchase", "refund"):
        continue
    sign = 1 if e["type"] == "purchase" else -1
    net[e["currency"]] = net.get(e["currency"], Decimal(0)) + sign * Decimal(str(e["amount"]))
print({k: str(v) for k, v in sorted(net.items())})

# %% errors by code and retry flag
codes = Counter((e["meta"]["code"], e["meta"]["retry"]) for e in events if e["type"] == "error")
for (code, retry), n in sorted(codes.items()):
    print(code, "retry" if retry else "final", n)
print(f"error rate {sum(codes.values()) / len(events):.2%}")

# %% users: first signup and first purchase per user
first_signup: dict[str, str] = {}
first_purchase: dict[str, str] = {}
for e in sorted(events, key=lambda e: e["ts"]):
    if e["type"] == "signup":
        first_signup.setdefault(e["user"], e["ts"])
    elif e["type"] == "purchase":
        first_purchase.setdefault(e["user"], e["ts"])
converted = [u for u in first_signup if u in first_purchase and first_purchase[u] > first_signup[u]]
print(len(first_signup), "signed up;", len(converted), "purchased later")

# %% how long from signup to purchase?
from datetime import datetime
delays = [
    (datetime.fromisoformat(first_purchase[u]) - datetime.fromisoformat(first_signup[u])).total_seconds() / 3600
    for u in converted
]
import statistics
print(f"median {statistics.median(delays):.1f} h, mean {statistics.mean(delays):.1f} h, max {max(delays):.0f} h")

# %% the sub-LLM over daily slices of raw lines
by_day: dict[str, list[str]] = {}
for line in lines:
    if line.startswith('{"ts": "'):
        by_day.setdefault(line[8:18], []).append(line)
days = sorted(by_day)
print(days[0], days[-1], len(days))
answers = llm_query_batched([f"Count the purchase events on {d}:\n" + "\n".join(by_day[d]) for d in days])
print(answers[:5])

# %% that counted every digit-bearing token: compare with a local count and keep ours
local = [sum('"type": "purchase"' in l for l in by_day[d]) for d in days]
print(local[:5])
ratio = [round(int(a) / l, 1) if l else None for a, l in zip(answers, local)]
print(ratio[:5])
per_day = dict(zip(days, local))

# %% top spenders in USD
spend = Counter()
for e in events:
    if e["type"] == "purchase" and e["currency"] == "USD":
        spend[e["user"]] += e["amount"]
print([(u, round(v, 2)) for u, v in spend.most_common(3)])

# %% submit
SUBMIT(
    net_revenue={k: float(v) for k, v in sorted(net.items())},
    error_codes={str(code): sum(n for (c, _), n in codes.items() if c == code) for code in sorted({c for c, _ in codes})},
    converted_users=len(converted),
    busiest_purchase_day=max(per_day, key=lambda d: (per_day[d], d)),
    skipped_lines=len(broken),
)
