# CodeAct: find a meeting slot for a team across time zones with the directory and calendar tools.
# variables: goal = {"team": "platform", "extra": ["Diana Lopez", "gpatel@example.com"], "week_of": "2024-05-13", "minutes": 60, "working_hours": [9, 17]}
# %% explore the directory
members = directory_list_team(goal["team"])
print(members)
print(directory_find_user(members[0]))

# %% resolve the extra attendees (name and e-mail)
people = [directory_find_user(u) for u in members]
for q in goal["extra"]:
    people.append(directory_find_user(q))
print([(p["username"], p["city"], p["utc_offset_hours"]) for p in people])

# %% an ambiguous or unknown lookup raises
for q in ["a", "Zed Zimmer"]:
    try:
        directory_find_user(q)
    except ValueError:
        print(f"{q!r}: ambiguous")
    except KeyError:
        print(f"{q!r}: unknown")

# %% get everyone's events for the week
from datetime import date, datetime, timedelta, timezone
monday = date.fromisoformat(goal["week_of"])
friday = monday + timedelta(days=4)
calendars = {p["username"]: calendar_list_events(p["username"], monday.isoformat(), friday.isoformat()) for p in people}
for user, events in calendars.items():
    print(f"{user:<9} {len(events):>2} events", [e["title"] for e in events[:3]])

# %% dates the wrong way round
try:
    calendar_list_events("asmith", friday.isoformat(), monday.isoformat())
except ValueError as err:
    print("ValueError:", err)
# differs: a tool error's message is prefixed "tool 'name' failed with ValueError: ..."

# %% busy intervals in UTC
def parse(ts: str) -> datetime:
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)

busy: list[tuple[datetime, datetime]] = sorted(
    (parse(e["start"]), parse(e["end"])) for events in calendars.values() for e in events
)
merged: list[list[datetime]] = []
for s, e in busy:
    if merged and s <= merged[-1][1]:
        merged[-1][1] = max(merged[-1][1], e)
    else:
        merged.append([s, e])
print(len(busy), "busy intervals merged into", len(merged))
print(merged[0][0].isoformat(), merged[0][1] - merged[0][0])

# %% each person's working hours in UTC
def working_window(p: dict, day: date) -> tuple[datetime, datetime]:
    tz = timezone(timedelta(hours=p["utc_offset_hours"]))
    start = datetime(day.year, day.month, day.day, goal["working_hours"][0], tzinfo=tz)
    end = datetime(day.year, day.month, day.day, goal["working_hours"][1], tzinfo=tz)
    return start.astimezone(timezone.utc), end.astimezone(timezone.utc)

for p in people[:3]:
    s, e = working_window(p, monday)
    print(f"{p['username']:<8} {s:%H:%M}-{e:%H:%M} UTC  ({s.tzinfo})")

# %% slots where everyone is working and nobody is busy
length = timedelta(minutes=goal["minutes"])
slots = []
for offset in range(5):
    day = monday + timedelta(days=offset)
    windows = [working_window(p, day) for p in people]
    lo, hi = max(w[0] for w in windows), min(w[1] for w in windows)
    t = lo
    while t + length <= hi:
        if not any(s < t + length and t < e for s, e in merged):
            slots.append(t)
        t += timedelta(minutes=30)
print(len(slots), "slots")
print([s.strftime("%a %H:%M") for s in slots[:10]])

# %% why none: the common working window is empty
windows = {p["username"]: working_window(p, monday) for p in people}
lo, hi = max(w[0] for w in windows.values()), min(w[1] for w in windows.values())
print("common window:", lo.time(), "->", hi.time(), "empty" if lo >= hi else "")
print(sorted(windows, key=lambda u: windows[u][0]))

# %% keep the people in UTC-1..UTC+2 as required, the rest optional
required = [p for p in people if -1 <= p["utc_offset_hours"] <= 2]
optional = [p["username"] for p in people if p not in required]
print("required:", [p["username"] for p in required], "optional:", optional)

def free_slots(group: list[dict], step: int = 30) -> list[datetime]:
    intervals = sorted((parse(e["start"]), parse(e["end"])) for p in group for e in calendars[p["username"]])
    found = []
    for offset in range(5):
        day = monday + timedelta(days=offset)
        ws = [working_window(p, day) for p in group]
        start, stop = max(w[0] for w in ws), min(w[1] for w in ws)
        t = start
        while t + length <= stop:
            if not any(s < t + length and t < e for s, e in intervals):
                found.append(t)
            t += timedelta(minutes=step)
    return found

options = free_slots(required)
print(len(options), [o.isoformat() for o in options[:4]])
by_day = {}
for o in options:
    by_day.setdefault(o.strftime("%A"), []).append(o.strftime("%H:%M"))
for day, times in by_day.items():
    print(f"{day:<10} {', '.join(times)}")

# %% show the first option in every attendee's local time
first = options[0] if options else None
if first:
    for p in people:
        local = first.astimezone(timezone(timedelta(hours=p["utc_offset_hours"])))
        print(f"{p['name']:<16} {local:%a %d %b %H:%M} (UTC{p['utc_offset_hours']:+g})")

# %% submit
SUBMIT(
    all_attendee_slots=[s.isoformat() for s in slots],
    core_team_slot=first.isoformat() if first else None,
    attendees=sorted(p["username"] for p in people),
)
