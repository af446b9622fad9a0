# An RLM session hunting one fact in a 900 KB report made of two reports and an appendix: overlapping chunks, probes.
# variables: context = report(450_000, seed=41) + "\n\n## Appendix A: Escrow\n\nNote: the escrow release code for the Lagos migration is QX-7731-B, confirmed by Grace on 2024-11-02 after a $48,250 holdback.\n\n" + report(450_000, seed=42)
# variables: query = "What is the escrow release code for the Lagos migration, who confirmed it, and when?"
# %% size and a look at the start and the end
print(f"{len(context):,} chars, {len(context.splitlines()):,} lines")
print(context[:200])
print("...", context[-200:])

# %% headings: numbering restarts, so there are two documents
import re
heads = re.findall(r"(?m)^## (.+)$", context)
print(len(heads), heads[:2], heads[-1])
numbers = [int(m) for m in re.findall(r"(?m)^## Section (\d+):", context)]
restarts = [i for i in range(1, len(numbers)) if numbers[i] < numbers[i - 1]]
print("restarts at heading index", restarts)
print([h for h in heads if not h.startswith("Section")])

# %% guess the format of the fact first
print(re.search(r"[Rr]elease code: (\S+)", context).group(1))

# %% keyword probe instead: 'code' anywhere?
hits = [m.start() for m in re.finditer(r"\bcode\b", context)]
print(len(hits), hits[:5])
print(re.findall(r"release code for the (\w+) (\w+) is ([A-Z0-9-]+)", context)[0])

# %% the whole note line
note = re.search(r"(?m)^Note: .*$", context)
note

# %% the match object shows only a prefix: print the text
print(note.span())
print(note.group(0))

# %% pretend we had not found it: chunks with overlap so a sentence is never cut
SIZE, OVERLAP = 60_000, 2_000
chunks = []
start = 0
while start < len(context):
    chunks.append((start, context[start:start + SIZE]))
    start += SIZE - OVERLAP
print(len(chunks), "chunks", chunks[-1][0], len(chunks[-1][1]))

# %% ask every chunk a yes/no question
probe = "Answer yes or no: does this text give an escrow release code?\n\n"
answers = llm_query_batched([probe + text for _, text in chunks])
yes = [i for i, a in enumerate(answers) if a.strip().lower().startswith("yes")]
print(answers)
print("yes chunks:", yes)

# %% too many yes answers to trust: confirm with a regex per chunk
CODE = re.compile(r"code for the (?P<what>.+?) is (?P<code>[A-Z]{2}-\d{4}-[A-Z])")
found = []
for i, (offset, text) in enumerate(chunks):
    for m in CODE.finditer(text):
        found.append((i, offset + m.start(), m["what"], m["code"]))
print(found)
unique = sorted({(pos, what, code) for _, pos, what, code in found})
print(unique)

# %% the sentence around the hit and a targeted sub-query on just that window
pos = unique[0][0]
window = context[max(0, pos - 300): pos + 300]
sentence = next(s for s in re.split(r"(?<=\.)\s+", window) if "escrow" in s)
print(sentence)
who = re.search(r"confirmed by (\w+) on (\d{4}-\d{2}-\d{2})", sentence)
holdback = re.search(r"\$([\d,]+)", sentence)
print(who.groups(), holdback.group(1))
print(llm_query(f"Summarise the key facts of this note:\n{sentence}"))

# %% did Grace do anything else with Lagos migrations around then?
from datetime import date
near = []
for m in re.finditer(r"Grace (\w+) the migration plan in Lagos on (\d{4}-\d{2}-\d{2}) for \$([\d,]+)", context):
    d = date.fromisoformat(m[2])
    if abs((d - date(2024, 11, 2)).days) <= 45:
        near.append((m[2], m[1], int(m[3].replace(",", ""))))
print(sorted(near))

# %% submit
SUBMIT(
    code=unique[0][2],
    confirmed_by=who.group(1),
    confirmed_on=who.group(2),
    holdback_usd=int(holdback.group(1).replace(",", "")),
    evidence=sentence,
)
