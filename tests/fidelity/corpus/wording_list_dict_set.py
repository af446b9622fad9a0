# Tallying tags from ticket records: list/dict/set method misuse and the exact messages.
# %% helper and records
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

tickets = [
    {"id": 1, "tags": ["bug", "ui"], "prio": 2},
    {"id": 2, "tags": ["bug"], "prio": 1},
    {"id": 3, "tags": ["feature", "ui", "api"]},
]
print(len(tickets), [t["id"] for t in tickets])

# %% list method misuse
ids = [t["id"] for t in tickets]
show(lambda: ids.append())
show(lambda: ids.append(1, 2))
show(lambda: ids.insert(1))
show(lambda: ids.insert("a", 1))
show(lambda: ids.insert(1.5, 1))
show(lambda: [].pop())
show(lambda: [1].pop(5))
show(lambda: [1].pop("a"))
show(lambda: [1].pop(1, 2))
show(lambda: ids.index(99))
show(lambda: ids.index())
show(lambda: ids.remove(99))
show(lambda: ids.remove())
show(lambda: ids.extend(5))
show(lambda: ids.extend())
show(lambda: ids.count())
show(lambda: ids.copy(1))
show(lambda: list.append([]))

# %% list.sort misuse
show(lambda: [3, 1].sort(key=len))
show(lambda: [3, 1].sort(key=None))
show(lambda: [3, "a"].sort())
show(lambda: [3, 1].sort(cmp=None))
show(lambda: [3, 1, 2].sort()[0])

# %% list.sort with a positional key
show(lambda: [3, 1].sort(len))

# %% list.sort(reverse=None)
show(lambda: [3, 1].sort(reverse=None))

# %% list.append with a keyword
# differs: "list.append() takes exactly one argument (0 given)" instead of "list.append() takes no keyword arguments"
show(lambda: ids.append(x=1))

# %% list.index with a str start
# differs: "'str' object cannot be interpreted as an integer" instead of "slice indices must be integers or have an __index__ method"
show(lambda: [1].index(1, "a"))

# %% list indexing and operators
show(lambda: ids[5])
show(lambda: ids["a"])
show(lambda: ids[1.0])
show(lambda: ids[None])
show(lambda: ids + (2,))
show(lambda: ids + 2)
show(lambda: ids * 1.5)
show(lambda: ids - [1])
show(lambda: [][0])
show(lambda: [].pop(0))

# %% priorities, uncaught KeyError
by_prio = sorted(tickets, key=lambda t: t["prio"])
print([t["id"] for t in by_prio])

# %% fix with get
by_prio = sorted(tickets, key=lambda t: t.get("prio", 99))
print([t["id"] for t in by_prio])

# %% dict method misuse
d = {"bug": 2, "ui": 2}
show(lambda: d.get())
show(lambda: d.get(1, 2, 3))
show(lambda: d.get([]))
show(lambda: d.pop())
show(lambda: d.pop("missing"))
show(lambda: d.pop(1, 2, 3))
show(lambda: {}.popitem())
show(lambda: d.update(5))
show(lambda: d.update([(1,)]))
show(lambda: d.update({}, {}))
show(lambda: d.update("ab"))
show(lambda: d.setdefault())
show(lambda: d.setdefault([], 1))
show(lambda: d.setdefault(1, 2, 3))
show(lambda: dict.fromkeys())
show(lambda: dict.fromkeys(5))
show(lambda: dict.fromkeys([1], 2, 3))
show(lambda: dict.get({}))

# %% dict views and lookups
# differs: a dict display's unhashable key ({[]: 1}) says "unhashable type: 'list'" where 3.14 says "cannot use 'list' as a dict key (unhashable type: 'list')": RustPython builds a display's dict inside its VM, past the dict's reworded slots and methods
show(lambda: d.keys()[0])
show(lambda: d.values()[0])
show(lambda: d.items()[0])
show(lambda: d["k"])
show(lambda: d[[]])
show(lambda: {[]: 1})
show(lambda: d + {})
show(lambda: d | [])
show(lambda: d.b)
show(lambda: d.has_key)
show(lambda: d.iteritems())
show(lambda: {("a", 1): 2}[("a", 2)])
show(lambda: list(d.keys())[0])

# %% dict.get with a keyword
# differs: "get expected at least 1 argument, got 0" instead of "dict.get() takes no keyword arguments"
show(lambda: d.get(key="bug"))

# %% dict.update from a flat list
show(lambda: d.update([1]))

# %% tag counting, uncaught
counts = {}
for t in tickets:
    for tag in t["tags"]:
        counts[tag] += 1
print(counts)

# %% fix with Counter
from collections import Counter
counts = Counter(tag for t in tickets for tag in t["tags"])
print(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

# %% set misuse
tags = set(counts)
show(lambda: tags.add())
show(lambda: tags.remove("zzz"))
show(lambda: set().pop())
show(lambda: tags.discard())
show(lambda: tags.union(5))
show(lambda: tags.update(5))
show(lambda: set(5))
show(lambda: set(1, 2))
show(lambda: tags[0])
show(lambda: tags + set())
show(lambda: tags | ["x"])
show(lambda: frozenset().add(1))
show(lambda: tags.issubset(5))
show(lambda: sorted(tags)[0])

# %% unhashable set elements
show(lambda: tags.add(["x"]))
show(lambda: {["bug"]})
