# RLM over a JSON-lines context of app events: parse, normalise nested fields, sessionise, funnel and latency percentiles.
# variables: context = "\n".join('{"ts": "2024-05-%02dT%02d:%02d:00Z", "user": "u%d", "event": "%s", "meta": {"device": "%s", "ms": %d}}' % (1 + i // 40, (i * 5) % 24, (i * 17) % 60, 1 + (i * 7 + i // 3) % 12, ["view", "view", "add_to_cart", "view", "checkout", "purchase"][(i * 7 + i // 4) % 6], ["ios", "android", "web"][(i // 2) % 3], 80 + (i * 37) % 400) for i in range(120)) + "\n{bad json line}\n"
# %% probe
lines = context.strip().split("\n")
print(len(lines))
print(lines[0])
print(lines[-1])
# %% parse the lines, skipping the broken ones
import json
events, bad = [], []
for n, line in enumerate(lines):
    try:
        events.append(json.loads(line))
    except json.JSONDecodeError as exc:
        bad.append((n, exc.msg))
print(len(events), bad)
# %% flatten the nested meta
import pandas as pd
import numpy as np
df = pd.json_normalize(events)
print(df.columns.tolist())
df["ts"] = pd.to_datetime(df["ts"])
print(df["ts"].dt.tz)
df.head(3)
# %% events per type and device
print(pd.crosstab(df["event"], df["meta.device"], margins=True))
# %% latency percentiles per device
lat = df.groupby("meta.device")["meta.ms"].describe(percentiles=[0.5, 0.9])[["count", "mean", "50%", "90%", "max"]]
print(lat.round(1))
# %% the funnel
steps = ["view", "add_to_cart", "checkout", "purchase"]
users_at = {s: set(df.loc[df["event"] == s, "user"]) for s in steps}
reached = set(users_at["view"])
for s in steps:
    reached &= users_at[s]
    print(f"{s:<12} {len(reached):>3}")
# %% per-user counts with unstack
per_user = df.groupby(["user", "event"]).size().unstack(fill_value=0)
per_user = per_user.reindex(columns=steps, fill_value=0)
print(per_user.sort_index(key=lambda idx: idx.str[1:].astype("int64")))
# %% sessions: a gap of more than six hours starts a new one
df = df.sort_values(["user", "ts"]).reset_index(drop=True)
gap = df.groupby("user")["ts"].diff() > pd.Timedelta(hours=6)
df["session"] = gap.groupby(df["user"]).cumsum()
sessions = df.groupby(["user", "session"]).agg(start=("ts", "min"), end=("ts", "max"), n=("event", "size"))
print(len(sessions), int(sessions["n"].max()))
print(sessions.head(5))
# %% slow events as records for the caller
slow = df.nlargest(3, "meta.ms")[["user", "event", "meta.ms"]]
print(slow.to_json(orient="records"))
# %% a key that is not in every record
[e["meta"]["country"] for e in events[:3]]
# %% get with a default
from collections import Counter
Counter(e["meta"].get("country", "unknown") for e in events)
# differs: a Counter as the cell's value comes back as a plain dict: {'unknown': 120} instead of Counter({'unknown': 120})
# %% daily active users
dau = df.set_index("ts").resample("D")["user"].nunique()
print(dau.to_string())
# %% the summary to submit
summary = {
    "events": len(df),
    "bad_lines": len(bad),
    "users": int(df["user"].nunique()),
    "p90_ms": float(np.percentile(df["meta.ms"], 90)),
    "top_event": df["event"].mode().iat[0],
}
print(json.dumps(summary))
FINAL(summary)
