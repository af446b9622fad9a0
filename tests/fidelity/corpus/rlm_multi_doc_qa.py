# An RLM session whose context is a list of 12 meeting reports (one string each): per-document answers, then a merge.
# variables: context = [report(25_000 + 3_000 * k, seed=100 + k) for k in range(12)]
# variables: query = "Across all meeting reports, which city saw the most security work, and how much money was involved?"
# %% what is the context?
print(type(context).__name__, len(context))
print([len(d) for d in context])
print(context[0][:250])

# %% sections across everything
sections = context.split("\n## ")
print(len(sections))

# %% context is a list of documents: split each one
sections = [(i, s) for i, doc in enumerate(context) for s in doc.split("\n## ")]
print(len(sections), sections[-1][1][:40])
print({i: sum(1 for j, _ in sections if j == i) for i in range(len(context))})

# %% one document per prompt with a question that counts
q = "How many security plans are mentioned in this report?\n\n"
counts = llm_query_batched([q + d for d in context])
print(counts)

# %% those counts look like token counts: verify locally
import re
local = [len(re.findall(r"the security plan", d)) for d in context]
print(local)
print([int(c) for c in counts] == local)

# %% extract security sentences per doc with their city and amount
SEC = re.compile(r"(\w+) (\w+) the security plan in (\w+) on ([\d-]+) for \$([\d,]+)")
rows = []
for doc_id, doc in enumerate(context):
    for who, verb, city, day, amt in SEC.findall(doc):
        rows.append((doc_id, who, verb, city, day, int(amt.replace(",", ""))))
print(len(rows), rows[:2])

# %% quick look at the amounts
for doc_id, who, amount in rows[:3]:
    print(doc_id, who, amount)

# %% rows have six fields: unpack them all
for doc_id, who, verb, city, day, amount in rows[:3]:
    print(f"doc {doc_id}: {who} {verb} in {city} on {day}, ${amount:,}")

# %% per city totals
from collections import Counter, defaultdict
by_city_n = Counter(r[3] for r in rows)
by_city_amt = defaultdict(int)
for r in rows:
    by_city_amt[r[3]] += r[5]
for city, n in sorted(by_city_n.items(), key=lambda kv: (-kv[1], kv[0]))[:5]:
    print(f"{city:<6} {n:>3} plans  ${by_city_amt[city]:>10,}")

# %% the leading city, and in how many documents it appears
best = min(by_city_n, key=lambda c: (-by_city_n[c], c))
docs_with = sorted({r[0] for r in rows if r[3] == best})
print(best, docs_with)

# %% per-document summaries of just that city's security sentences
snippets = {d: [r for r in rows if r[0] == d and r[3] == best] for d in docs_with}
summaries = llm_query_batched([
    f"Summarise these security decisions:\n" + "\n".join(f"{w} {v} on {day} for ${a:,}" for _, w, v, _, day, a in snippets[d])
    for d in docs_with
])
for d, s in zip(docs_with, summaries):
    print(d, s)

# %% verbs for the best city
verbs = Counter(r[2] for r in rows if r[3] == best)
print(verbs.most_common())
print(verbs["approved"] / sum(verbs.values()))

# %% submit
SUBMIT(
    city=best,
    security_plans=by_city_n[best],
    total_amount=by_city_amt[best],
    documents=[f"report-{d + 1}" for d in docs_with],
)
