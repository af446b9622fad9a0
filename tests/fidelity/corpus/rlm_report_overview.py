# An RLM session over a long report: look at the context, split it, fan out to the sub-LLM, submit.
# variables: context = report(300_000)
# %% peek at the context
print(type(context), len(context))
print(context[:300])

# %% find the sections
import re
sections = re.split(r"\n(?=## Section )", context)
print(f"Found {len(sections)} sections")
headings = [s.splitlines()[0] for s in sections[:5]]
for h in headings:
    print(h)

# %% count amounts
amounts = [int(a.replace(",", "")) for a in re.findall(r"\$([\d,]+)", context)]
print(len(amounts), sum(amounts), max(amounts))
total: int = sum(amounts)
print(f"Total: ${total:,}")

# %% ask the sub-LLM about the first sections
answers = llm_query_batched([f"Summarise this section:\n{s}" for s in sections[:4]])
for i, a in enumerate(answers):
    print(i, a)

# %% a mistake the model then fixes
print(sections[0].splt("\n"))

# %% submit
SUBMIT(answer=f"{len(sections)} sections, total ${total:,}")
