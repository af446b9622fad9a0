# An RLM session building a month-by-month timeline from a 400 KB report: dates, datetime, buckets, one query per month.
# variables: context = report(400_000, seed=31)
# variables: query = "Build a timeline: for each month of 2024, how many plans were escalated or rejected, and the biggest one?"
# %% first look
print(len(context))
print(context[:350])
print(context.count("escalated"), context.count("rejected"))

# %% sentences with their section
import re
from dataclasses import dataclass
from datetime import date, datetime

@dataclass
class Event:
    section: int
    who: str
    verb: str
    topic: str
    city: str
    when: date
    amount: int

events: list[Event] = []
for block in re.split(r"\n(?=## Section )", context):
    sec = int(re.match(r"## Section (\d+)", block).group(1))
    for sentence in re.findall(r"[^.]+?\.(?=\s|$)", block.split("\n", 1)[1]):
        m = re.search(r"(\w+) (\w+) the (\w+) plan in (\w+) on (\S+) for \$([\d,]+)", sentence)
        if m:
            who, verb, topic, city, d, amt = m.groups()
            events.append(Event(sec, who, verb, topic, city, datetime.strptime(d, "%d-%m-%Y").date(), int(amt.replace(",", ""))))
print(len(events))

# %% the dates are ISO: use date.fromisoformat
events = []
for block in re.split(r"\n(?=## Section )", context):
    sec = int(re.match(r"## Section (\d+)", block).group(1))
    for m in re.finditer(r"(\w+) (\w+) the (\w+) plan in (\w+) on (\S+) for \$([\d,]+)", block):
        who, verb, topic, city, d, amt = m.groups()
        events.append(Event(sec, who, verb, topic, city, date.fromisoformat(d), int(amt.replace(",", ""))))
print(len(events))
print(events[0])
print(min(e.when for e in events), max(e.when for e in events))

# %% bucket the escalations and rejections by month
from collections import defaultdict
import calendar

flagged = [e for e in events if e.verb in ("escalated", "rejected")]
months: dict[int, list[Event]] = defaultdict(list)
for e in flagged:
    months[e.when.month].append(e)
for m in sorted(months):
    evs = months[m]
    big = max(evs, key=lambda e: (e.amount, e.section))
    print(f"{calendar.month_abbr[m]} {len(evs):>4}  biggest ${big.amount:>6,} ({big.who}, {big.topic}, {big.when:%d %b})")

# %% month boundaries for the report (naively the 31st)
from datetime import date as _date
bounds = {m: (_date(2024, m, 1), _date(2024, m, 31)) for m in sorted(months)}
print(bounds[1])

# %% not every month has 31 days: calendar.monthrange
bounds = {m: (_date(2024, m, 1), _date(2024, m, calendar.monthrange(2024, m)[1])) for m in sorted(months)}
print([b[1].day for b in bounds.values()])
assert all(bounds[e.when.month][0] <= e.when <= bounds[e.when.month][1] for e in flagged)

# %% weekday pattern
weekday_counts = [0] * 7
for e in flagged:
    weekday_counts[e.when.weekday()] += 1
print(dict(zip(calendar.day_name, weekday_counts)))
print(calendar.day_name[weekday_counts.index(max(weekday_counts))])

# %% ask the sub-LLM one question per month, with that month's sentences
month_prompts = []
for m in sorted(months):
    lines_ = [f"{e.when.isoformat()} {e.who} {e.verb} {e.topic} in {e.city} for ${e.amount:,}" for e in months[m]]
    month_prompts.append(f"Month {calendar.month_name[m]} 2024. Summarise the main risks:\n" + "\n".join(lines_))
print([len(p) for p in month_prompts])
month_summaries = llm_query_batched(month_prompts)
print(month_summaries[0])

# %% pull the prompt sizes back out of the replies as ints
sizes = [int(re.search(r"\((\d+) chars\)", s)[1]) for s in month_summaries]
print(sizes == [len(p) for p in month_prompts])

# %% gaps between consecutive escalations in the same city
from itertools import pairwise
gaps = {}
for city in sorted({e.city for e in flagged}):
    days = sorted({e.when for e in flagged if e.city == city})
    longest = max(pairwise(days), key=lambda ab: ((ab[1] - ab[0]).days, ab[0]))
    gaps[city] = (longest[0].isoformat(), longest[1].isoformat(), (longest[1] - longest[0]).days)
for city, g in gaps.items():
    print(city, g)

# %% the timeline as a list of dicts
timeline = []
for m in sorted(months):
    big = max(months[m], key=lambda e: (e.amount, e.section))
    timeline.append({
        "month": f"2024-{m:02d}",
        "flagged": len(months[m]),
        "escalated": sum(e.verb == "escalated" for e in months[m]),
        "biggest": {"who": big.who, "amount": big.amount, "date": str(big.when)},
    })
print(timeline[:2])
print(sum(t["flagged"] for t in timeline) == len(flagged))

# %% submit
SUBMIT(timeline=timeline, busiest_month=max(timeline, key=lambda t: t["flagged"])["month"])
