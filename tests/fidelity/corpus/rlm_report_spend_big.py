# An RLM session over a 1.5 MB report: who approved the most money, per topic and city? Regex first, sub-LLM per chunk.
# variables: context = report(1_500_000, seed=19)
# variables: query = "Who approved the largest total amount, and which topics dominate the approvals?"
# %% look at the shape of the context
print(len(context), "chars;", context.count("\n"), "newlines;", context.count("## Section"), "sections")
print(context[:500])

# %% split by headings
import re
sections = [s for s in re.split(r"(?m)^(?=## Section \d+:)", context) if s.strip()]
print(len(sections))
titles = [s.split("\n", 1)[0] for s in sections]
print(titles[:3], titles[-2:])
sizes = sorted(len(s) for s in sections)
print("smallest", sizes[0], "largest", sizes[-1], "median", sizes[len(sizes) // 2])

# %% extract every sentence as a structured event
SENT = re.compile(
    r"(?P<who>[A-Z][a-z]+) (?P<verb>\w+) the (?P<topic>\w+) plan in (?P<city>[A-Z][a-z]+) "
    r"on (?P<date>\d{4}-\d{2}-\d{2}) for \$(?P<amount>[\d,]+)\."
)
events = [m.groupdict() for m in SENT.finditer(context)]
print(len(events))
print(events[:2])

# %% money to ints, then totals per person for approvals
from collections import Counter, defaultdict
for e in events:
    e["amount"] = int(e["amount"].replace(",", ""))
approved = [e for e in events if e["verb"] == "approved"]
per_person = Counter()
for e in approved:
    per_person[e["who"]] += e["amount"]
for who, amt in per_person.most_common(5):
    print(f"{who:<10} ${amt:>14,}")

# %% topic mix for the top approver
top_person = per_person.most_common(1)[0][0]
mix = Counter(e["topic"] for e in approved if e["who"] == top_person)
print(top_person, mix.most_common())
share = {t: round(100 * n / sum(mix.values()), 1) for t, n in mix.most_common(3)}
print(share)

# %% cross-tab of verbs x topics (sorted for a stable table)
verbs = sorted({e["verb"] for e in events})
topics = sorted({e["topic"] for e in events})
table = defaultdict(Counter)
for e in events:
    table[e["verb"]][e["topic"]] += 1
print(" " * 10 + "".join(f"{t[:6]:>8}" for t in topics))
for v in verbs:
    print(f"{v:<10}" + "".join(f"{table[v][t]:>8}" for t in topics))

# %% chunk by size on section boundaries (~100k chars each) for the sub-LLM
chunks: list[str] = []
current = ""
for s in sections:
    if current and len(current) + len(s) > 100_000:
        chunks.append(current)
        current = ""
    current += s
if current:
    chunks.append(current)
print(len(chunks), "chunks", [len(c) // 1000 for c in chunks], "k chars")
assert sum(map(len, chunks)) == sum(map(len, sections))

# %% fan out with a summary question per chunk
answers = llm_query_batched(
    [f"Summarise who approved which plans in this part of the report.\n\n{c}" for c in chunks]
)
for i, a in enumerate(answers[:5]):
    print(i, a)

# %% parse the sub-LLM summaries: "Summary (N chars): word xK, ..."
ANS = re.compile(r"Summary \((\d+) chars\): (.*)")
mentions = Counter()
for a in answers:
    m = ANS.match(a)
    for part in m.group(2).split(", "):
        word, n = part.rsplit(" x", 1)
        mentions[word] += n
print(mentions.most_common(5))

# %% n was a str: int() it
mentions = Counter()
seen_chars = 0
for a in answers:
    if not (m := ANS.match(a)):
        continue
    seen_chars += int(m.group(1))
    for part in m.group(2).split(", "):
        word, n = part.rsplit(" x", 1)
        mentions[word] += int(n)
print(mentions.most_common(5))
print(f"the sub-LLM saw {seen_chars:,} chars of prompts")

# %% check one approval for the top person with a single query
example = next(e for e in approved if e["who"] == top_person and e["amount"] > 90_000)
print(example)
verdict = llm_query(
    f"Answer yes or no: did {example['who']} approve the {example['topic']} plan in {example['city']}?"
)
print(verdict)

# %% final answer
SUBMIT(
    top_approver=top_person,
    approved_total=per_person[top_person],
    top_topics=[t for t, _ in mix.most_common(3)],
    sections=len(sections),
    events=len(events),
)
