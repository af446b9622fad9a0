# An RLM session over an exported mailbox: split messages on headers, strip quotes, triage urgency with yes/no sub-queries.
# variables: context = rlm_email_thread(420)
# variables: query = "Which open threads are urgent, who owes a reply, and what amounts and deadlines are mentioned?"
# %% peek
print(len(context), "chars")
print(context[:600])

# %% split on the From: header at the start of a line
import re
messages = re.split(r"\n\n(?=From: )", context.strip())
print(len(messages))
print(messages[-1][:200])

# %% headers and bodies
def parse_message(raw: str) -> dict:
    head, _, body = raw.partition("\n\n")
    headers = {}
    for line in head.splitlines():
        key, value = line.split(": ", 1)
        headers[key.lower()] = value
    return {**headers, "body": body}

mails = [parse_message(m) for m in messages]
print(mails[0].keys())
print({k: v for k, v in mails[0].items() if k != "body"})

# %% strip quoted text and signatures from the bodies
def fresh_text(body: str) -> str:
    kept = [l for l in body.splitlines() if not l.startswith(">")]
    text = "\n".join(kept)
    return text.split("\nBest,")[0].strip()

for m in mails:
    m["text"] = fresh_text(m["body"])
print(mails[0]["text"])
print(sum(">" in m["body"] for m in mails), "messages quote an earlier one")

# %% threads by subject without the Re: prefix
from collections import defaultdict
threads: dict[str, list[dict]] = defaultdict(list)
for m in mails:
    threads[m["subject"].removeprefix("Re: ")].append(m)
for subject in sorted(threads):
    ms = threads[subject]
    print(f"{subject:<20} {len(ms):>3} messages, {len({m['from'] for m in ms})} senders")

# %% amounts and deadlines
money = re.compile(r"\$(\d{1,3}(?:,\d{3})*)")
deadline = re.compile(r"deadline is (\d{4}-\d{2}-\d{2})")
for m in mails:
    m["amount"] = int(money.search(m["text"]).group(1).replace(",", ""))
    m["deadline"] = deadline.search(m["text"]).group(1)
print(mails[0]["amount"], mails[0]["deadline"])
print(max(mails, key=lambda m: m["amount"])["amount"])

# %% urgency: ask the sub-LLM, one yes/no per message
prompts = [f"Answer yes or no: is this e-mail urgent?\n\n{m['text']}" for m in mails]
votes = llm_query_batched(prompts)
print(votes[:10])
from collections import Counter
print(Counter(votes))

# %% compare with the literal marker
marked = [("URGENT" in m["text"]) for m in mails]
agree = sum((v == "yes") == u for v, u in zip(votes, marked))
print(f"sub-LLM agrees with the marker on {agree}/{len(mails)}")
urgent = [m for m, u in zip(mails, marked) if u]
print(len(urgent), "marked urgent")

# %% who owes a reply: the last message of each thread names its recipient
last_by_thread = {s: max(ms, key=lambda m: m["date"]) for s, ms in threads.items()}
owes = Counter(m["to"] for m in last_by_thread.values())
print(owes)

# %% urgent messages sorted by date, with the first name of the recipient
urgent.sort(key=lambda m: (m["date"], m["from"]))
for m in urgent[:5]:
    name = m["to"].split("@")[0].title()
    print(m["date"], m["from"], "->", name, f"${m['amount']:,}", "due", m["deadline"])

# %% a one-paragraph summary of the urgent ones from the sub-LLM
digest = "\n".join(f"- {m['date']} {m['subject']}: ${m['amount']:,} due {m['deadline']}" for m in urgent)
print(len(digest))
summary = llm_query("Summarise the urgent items below for an executive:\n" + digest)
print(summary)

# %% submit
SUBMIT(
    urgent_count=len(urgent),
    owes_reply=sorted(owes),
    largest_urgent_amount=max(m["amount"] for m in urgent),
    earliest_deadline=min(m["deadline"] for m in urgent),
    summary=summary,
)
