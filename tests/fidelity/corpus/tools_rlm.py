"""More long texts for RLM sessions (the rlm_* corpus files): invoices, an e-mail thread, JSON lines, a code dump.

Only helpers for ``# variables:`` lines (no tools). Every private name carries ``_rlm_`` because the tool
modules are executed into one namespace when variables are built.
"""

import json
import random

TOOLS: list = []

_RLM_VENDORS = ["Acme Corp", "Globex", "Initech", "Umbrella Ltd", "Stark Industries", "Wayne Supply", "Hooli"]
_RLM_ITEMS = ["consulting hours", "cloud credits", "license seats", "hardware", "support plan", "training"]
_RLM_PEOPLE = ["alice@corp.example", "bob@corp.example", "carol@vendor.example", "dan@corp.example",
               "erin@legal.example", "frank@vendor.example"]
_RLM_SUBJECTS = ["Q3 renewal", "Outage follow-up", "Contract redlines", "Invoice dispute", "Launch plan"]


def rlm_invoice_dump(count: int, seed: int = 21) -> str:
    """Plain-text invoices one after the other, separated by a rule, with money in a few formats."""
    rng = random.Random(seed)
    blocks = []
    for number in range(count):
        lines = [
            f"INVOICE #{20240000 + number * 7}",
            f"Vendor: {rng.choice(_RLM_VENDORS)}",
            f"Date: {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/2024",
            f"Currency: {rng.choice(['USD', 'USD', 'USD', 'EUR'])}",
        ]
        for _ in range(rng.randint(1, 5)):
            qty = rng.randint(1, 40)
            price = rng.randint(500, 250000) / 100
            lines.append(f"  - {rng.choice(_RLM_ITEMS):<18} x{qty:<3} @ {price:,.2f}")
        if rng.random() < 0.3:
            lines.append(f"Discount: {rng.choice([5, 10, 15])}%")
        if rng.random() < 0.15:
            lines.append("Status: DISPUTED")
        else:
            lines.append(f"Status: {rng.choice(['PAID', 'PAID', 'OPEN', 'OVERDUE'])}")
        blocks.append("\n".join(lines))
    return ("\n" + "-" * 40 + "\n").join(blocks) + "\n"


def rlm_email_thread(count: int, seed: int = 8) -> str:
    """An exported mailbox: messages with headers and bodies, some quoted replies and urgent markers."""
    rng = random.Random(seed)
    messages = []
    for number in range(count):
        sender = rng.choice(_RLM_PEOPLE)
        to = rng.choice([p for p in _RLM_PEOPLE if p != sender])
        subject = rng.choice(_RLM_SUBJECTS)
        if rng.random() < 0.4:
            subject = "Re: " + subject
        day = 1 + number * 3 // 10
        body = [
            f"Hi {to.split('@')[0].title()},",
            "",
            f"Following up on {subject.removeprefix('Re: ').lower()} - the number we discussed was "
            f"${rng.randint(1, 500) * 100:,} and the deadline is 2024-{rng.randint(4, 9):02d}-{rng.randint(1, 28):02d}.",
        ]
        if rng.random() < 0.25:
            body.append("This is URGENT, please reply today.")
        if rng.random() < 0.3:
            body += ["", "> On an earlier day someone wrote:", "> please send the figures", "> thanks"]
        body += ["", "Best,", sender.split("@")[0].title()]
        messages.append(
            f"From: {sender}\nTo: {to}\nDate: 2024-05-{min(day, 28):02d} {rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}\n"
            f"Subject: {subject}\n\n" + "\n".join(body)
        )
    return "\n\n".join(messages) + "\n"


def rlm_events_jsonl(count: int, seed: int = 13) -> str:
    """JSON lines of product events, with a few broken lines and blank lines as real dumps have."""
    rng = random.Random(seed)
    kinds = ["signup", "login", "purchase", "refund", "logout", "error"]
    lines = []
    for number in range(count):
        event = {
            "ts": f"2024-04-{1 + number // 400:02d}T{number % 24:02d}:{number * 13 % 60:02d}:00",
            "user": f"u{rng.randint(1, 300):04d}",
            "type": rng.choice(kinds),
        }
        if event["type"] in ("purchase", "refund"):
            event["amount"] = round(rng.uniform(1, 400), 2)
            event["currency"] = rng.choice(["USD", "USD", "EUR", "GBP"])
        if event["type"] == "error":
            event["meta"] = {"code": rng.choice([400, 401, 500, 503]), "retry": rng.random() < 0.5}
        line = json.dumps(event)
        roll = rng.random()
        if roll < 0.01:
            line = line[: len(line) // 2]
        elif roll < 0.02:
            line = ""
        lines.append(line)
    return "\n".join(lines)


_RLM_FUNCS = ["load", "parse", "validate", "render", "fetch", "retry", "merge", "flush", "resolve", "encode"]
_RLM_NOUNS = ["config", "user", "order", "cache", "token", "report", "batch", "schema", "event", "payload"]


def rlm_code_dump(files: int, seed: int = 4) -> str:
    """A repository dump: ``=== path ===`` headers followed by Python source with TODOs and FIXMEs."""
    rng = random.Random(seed)
    parts = []
    for number in range(files):
        package = rng.choice(["core", "api", "utils", "jobs"])
        path = f"src/{package}/{rng.choice(_RLM_NOUNS)}_{number}.py"
        body = [f'"""Module {number}: {rng.choice(_RLM_NOUNS)} handling."""', "", "import json", ""]
        if rng.random() < 0.5:
            cls = rng.choice(_RLM_NOUNS).title() + "Manager"
            body += [f"class {cls}:", "    def __init__(self, size=10):", "        self.size = size", ""]
        for _ in range(rng.randint(1, 6)):
            name = f"{rng.choice(_RLM_FUNCS)}_{rng.choice(_RLM_NOUNS)}"
            args = ", ".join(rng.sample(["data", "limit", "timeout", "strict", "path"], rng.randint(0, 3)))
            body.append(f"def {name}({args}):")
            if rng.random() < 0.3:
                body.append(f"    # TODO({rng.choice(['ana', 'bo', 'cy'])}): handle {rng.choice(_RLM_NOUNS)} errors")
            if rng.random() < 0.15:
                body.append("    # FIXME: this leaks file handles")
            for _ in range(rng.randint(1, 8)):
                body.append(f"    x = {rng.randint(0, 99)}  # step")
            body += ["    return x", ""]
        parts.append(f"=== {path} ===\n" + "\n".join(body))
    return "\n".join(parts)
