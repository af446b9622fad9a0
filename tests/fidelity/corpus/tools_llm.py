"""The sub-LLM an RLM program calls, and the long texts it works over: deterministic stand-ins.

``llm_query`` answers from the prompt alone (so the same prompt gives the same answer on both sides): a
question that asks for a number gets the count of digits-bearing words, a yes/no question a yes or no from
the prompt's words, anything else a short summary naming the prompt's length and its most frequent words.
"""

import random
import re

TOOLS = ["llm_query", "llm_query_batched"]

_WORD = re.compile(r"[A-Za-z']+")
_STOP = {"the", "a", "an", "of", "and", "to", "in", "is", "it", "that", "for", "on", "with", "as", "was", "this"}


def llm_query(prompt: str) -> str:
    """One sub-LLM call."""
    if not isinstance(prompt, str):
        raise TypeError(f"llm_query() expects a str prompt, got {type(prompt).__name__}")
    lowered = prompt.lower()
    words = [w.lower() for w in _WORD.findall(prompt)]
    if "how many" in lowered or "count" in lowered:
        return str(sum(1 for token in prompt.split() if any(c.isdigit() for c in token)))
    if "yes or no" in lowered:
        return "yes" if sum(map(len, words)) % 3 else "no"
    counts: dict[str, int] = {}
    for word in words:
        if word not in _STOP and len(word) > 2:
            counts[word] = counts.get(word, 0) + 1
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:3]
    return f"Summary ({len(prompt)} chars): " + ", ".join(f"{w} x{n}" for w, n in top)


def llm_query_batched(prompts: list) -> list:
    """Many sub-LLM calls at once, answers in the prompts' order."""
    if not isinstance(prompts, list):
        raise TypeError(f"llm_query_batched() expects a list of prompts, got {type(prompts).__name__}")
    return [llm_query(prompt) for prompt in prompts]


# --- texts for variables (evaluated on the test's side, passed to both as JSON) ---

_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken"]
_PLACES = ["Paris", "Lagos", "Osaka", "Lima", "Oslo", "Pune", "Quito", "Cairo", "Hanoi", "Perth"]
_TOPICS = ["budget", "hiring", "latency", "security", "roadmap", "pricing", "outage", "migration", "audit"]
_VERBS = ["reviewed", "approved", "rejected", "postponed", "discussed", "escalated", "merged", "closed"]


def _sentence(rng: random.Random) -> str:
    return (
        f"{rng.choice(_NAMES)} {rng.choice(_VERBS)} the {rng.choice(_TOPICS)} plan in {rng.choice(_PLACES)}"
        f" on 2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} for ${rng.randint(100, 99999):,}."
    )


def report(chars: int, seed: int = 7) -> str:
    """A long report: numbered sections of paragraphs of sentences naming people, places, dates, money."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    section = 0
    while size < chars:
        section += 1
        heading = f"## Section {section}: {rng.choice(_TOPICS).title()}"
        paragraphs = [" ".join(_sentence(rng) for _ in range(rng.randint(2, 6))) for _ in range(rng.randint(1, 4))]
        block = heading + "\n\n" + "\n\n".join(paragraphs) + "\n"
        parts.append(block)
        size += len(block) + 1
    return "\n".join(parts)


def log_lines(count: int, seed: int = 11) -> str:
    """A server log: ``2024-03-01T12:00:05Z LEVEL service message key=value ...`` lines."""
    rng = random.Random(seed)
    levels = ["INFO"] * 6 + ["WARN"] * 2 + ["ERROR"]
    services = ["api", "auth", "db", "cache", "worker"]
    lines = []
    for i in range(count):
        second = i * 7
        stamp = f"2024-03-{1 + second // 86400:02d}T{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
        level = rng.choice(levels)
        service = rng.choice(services)
        latency = rng.randint(1, 2500)
        user = rng.choice(_NAMES).lower()
        lines.append(f"{stamp} {level} {service} request done user={user} latency_ms={latency} status={rng.choice([200, 200, 200, 404, 500])}")
    return "\n".join(lines)


def sales_csv(rows: int, seed: int = 3) -> str:
    """A CSV export with a header, quoted fields with commas, blanks and odd spacing, as real exports have."""
    rng = random.Random(seed)
    out = ["order_id,date,customer,region,product,quantity,unit_price,notes"]
    products = ["Widget", "Gadget", "Doohickey", "Sprocket", "Gizmo"]
    for i in range(rows):
        note = rng.choice(["", "", "rush", '"gift, wrapped"', "  returned  ", "n/a"])
        qty = rng.choice([str(rng.randint(1, 20)), str(rng.randint(1, 20)), ""])
        out.append(
            f"{1000 + i},2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},{rng.choice(_NAMES)},"
            f"{rng.choice(['north', 'South', 'EAST', 'west '])},{rng.choice(products)},{qty},"
            f"{rng.randint(100, 9999) / 100:.2f},{note}"
        )
    return "\n".join(out) + "\n"


def records(count: int, seed: int = 5) -> list:
    """JSON-like records (dicts) with nested lists, missing keys and None values."""
    rng = random.Random(seed)
    found = []
    for i in range(count):
        record = {"id": i, "name": rng.choice(_NAMES), "city": rng.choice(_PLACES), "score": rng.randint(0, 100)}
        if rng.random() < 0.8:
            record["tags"] = rng.sample(_TOPICS, rng.randint(0, 3))
        if rng.random() < 0.2:
            record["score"] = None
        found.append(record)
    return found
