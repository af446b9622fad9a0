# CodeAct: answer a support question from the knowledge base: several searches, rank fusion, fetch, cite.
# variables: question = "Our integration started getting HTTP 429 and some 500 errors after we rotated the API token yesterday. What should we do, and are webhooks affected?"
# %% what does the search tool return
hits = docs_search_ranked("API rate limit 429")
print(type(hits), len(hits))
print(hits[0])
print(hits[0].keys())

# %% split the question into sub-queries
import re
queries = [
    "HTTP 429 rate limit",
    "500 errors retry",
    "rotate API token",
    "webhook retries delivery",
]
results: dict[str, list[dict]] = {}
for q in queries:
    results[q] = docs_search_ranked(q, top_k=5)
    print(f"{q!r:30} -> {[h['doc_id'] for h in results[q]]}")

# %% asking for too many results fails
try:
    docs_search_ranked("token", top_k=20)
except ValueError:
    print("top_k too large, using 10")
    print(len(docs_search_ranked("token", top_k=10)))

# %% reciprocal rank fusion over the result lists
from collections import defaultdict
K = 60
fused: defaultdict[str, float] = defaultdict(float)
titles: dict[str, str] = {}
best_score: dict[str, float] = {}
for q, hs in results.items():
    for rank, h in enumerate(hs, start=1):
        fused[h["doc_id"]] += 1 / (K + rank)
        titles[h["doc_id"]] = h["title"]
        best_score[h["doc_id"]] = max(best_score.get(h["doc_id"], 0.0), h["score"])
ranking = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
for doc_id, s in ranking:
    print(f"{doc_id}  {s:.5f}  best={best_score[doc_id]:<7} {titles[doc_id]}")

# %% fetch the top documents
top_ids = [doc_id for doc_id, _ in ranking[:5]]
docs = [docs_fetch_document(d) for d in top_ids]
print(sum(d["words"] for d in docs), "words")
for d in docs:
    print(d["doc_id"], d["title"], "|", d["body"][:60])

# %% one id typed by hand has a typo
try:
    docs_fetch_document("KB-1040")
except KeyError as e:
    print("not found:", e)
# differs: a tool error's message is prefixed "tool 'name' failed with KeyError: ..."

# %% pull sentences that mention the key terms
terms = {"429": "rate limit", "retry": "retries", "revoke": "token", "token": "token", "webhook": "webhooks", "backoff": "retries", "500": "server errors"}
evidence: dict[str, list[tuple[str, str]]] = defaultdict(list)
for d in docs:
    for sentence in re.split(r"(?<=[.!?])\s+", d["body"]):
        lowered = sentence.lower()
        for term, topic in terms.items():
            if term in lowered:
                evidence[topic].append((d["doc_id"], sentence))
                break
for topic in sorted(evidence):
    print(f"## {topic}")
    for doc_id, sentence in evidence[topic]:
        print(f"  [{doc_id}] {sentence}")

# %% draft the answer with wrapped paragraphs
import textwrap
paragraphs = [
    "HTTP 429 means the token exceeded 600 requests per minute; honour the Retry-After header and batch requests (one request per 100 items) [KB-104].",
    "Retry the 500s only for idempotent requests, with exponential backoff; if they persist for more than 5 minutes check the status page and open a ticket with the request id [KB-112].",
    "After rotating, make sure every deployment uses the new token: revoked tokens fail with 401 immediately [KB-105].",
    "Webhooks are not tied to the API token: failed deliveries are retried with backoff for up to 24 hours and show up in the webhook log [KB-110].",
]
answer = "\n\n".join(textwrap.fill(p, width=72) for p in paragraphs)
print(answer)
cited = sorted(set(re.findall(r"\[(KB-\d+)\]", answer)))
print(cited, all(c in fused for c in cited))

# %% submit with sources
import json
sources = [{"doc_id": c, "title": titles[c], "rrf": round(fused[c], 5)} for c in cited]
print(json.dumps(sources, indent=1))
SUBMIT(answer=answer, sources=sources)
