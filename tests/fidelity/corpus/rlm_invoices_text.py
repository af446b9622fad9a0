# An RLM session over 700 KB of plain-text invoices: split on rules, parse money with Decimal, totals per vendor and status.
# variables: context = rlm_invoice_dump(3000)
# variables: query = "How much is owed (OPEN, OVERDUE or DISPUTED) per vendor in USD and EUR, after discounts?"
# %% peek
print(len(context))
print(context[:700])

# %% split into invoices on the rule lines
blocks = context.split("-" * 40)
print(len(blocks))
print(repr(blocks[1][:80]))
blocks = [b.strip() for b in blocks if b.strip()]
print(len(blocks), "non-empty")

# %% parse one invoice by hand first
import re
first = blocks[0]
for line in first.splitlines():
    print(repr(line))

# %% a parser with a dataclass
from dataclasses import dataclass, field
from decimal import Decimal

ITEM = re.compile(r"^\s*-\s+(?P<item>.+?)\s+x(?P<qty>\d+)\s+@\s+(?P<price>[\d,]+\.\d{2})$")

@dataclass
class Invoice:
    number: int
    vendor: str
    date: str
    currency: str
    status: str
    discount_pct: int = 0
    lines: list = field(default_factory=list)

    @property
    def subtotal(self) -> Decimal:
        return sum((Decimal(p) * q for _, q, p in self.lines), Decimal("0"))

    @property
    def total(self) -> Decimal:
        return (self.subtotal * (100 - self.discount_pct) / 100).quantize(Decimal("0.01"))

def parse_invoice(text: str) -> Invoice:
    head = dict(re.findall(r"^(\w+): (.+)$", text, re.M))
    inv = Invoice(
        number=int(re.search(r"INVOICE #(\d+)", text).group(1)),
        vendor=head["Vendor"], date=head["Date"], currency=head["Currency"], status=head["Status"],
        discount_pct=int(head.get("Discount", "0%").rstrip("%")),
    )
    for m in ITEM.finditer(text):
        inv.lines.append((m["item"], int(m["qty"]), m["price"]))
    return inv

inv0 = parse_invoice(blocks[0])
print(inv0)
print(inv0.total)

# %% Decimal rejects the thousands separator
print(Decimal("2,215.60"))

# %% strip commas in the parser and re-run
def parse_invoice(text: str) -> Invoice:
    head = dict(re.findall(r"^(\w+): (.+)$", text, re.M))
    inv = Invoice(
        number=int(re.search(r"INVOICE #(\d+)", text).group(1)),
        vendor=head["Vendor"], date=head["Date"], currency=head["Currency"], status=head["Status"],
        discount_pct=int(head.get("Discount", "0%").rstrip("%")),
    )
    for m in re.finditer(ITEM.pattern, text, re.M):
        inv.lines.append((m["item"], int(m["qty"]), m["price"].replace(",", "")))
    return inv

invoices = [parse_invoice(b) for b in blocks]
print(len(invoices), invoices[0].total, invoices[0].subtotal)
print(sum(len(i.lines) for i in invoices), "line items")

# %% status and currency breakdown
from collections import Counter
print(Counter(i.status for i in invoices).most_common())
print(Counter((i.currency, i.status) for i in invoices).most_common(4))

# %% owed per vendor and currency
from collections import defaultdict
OWED = {"OPEN", "OVERDUE", "DISPUTED"}
owed: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
for inv in invoices:
    if inv.status in OWED:
        owed[inv.vendor][inv.currency] += inv.total
for vendor in sorted(owed):
    parts = ", ".join(f"{cur} {amt:,.2f}" for cur, amt in sorted(owed[vendor].items()))
    print(f"{vendor:<17} {parts}")

# %% gross amounts with 20% VAT for the USD invoices
# differs: Decimal is _pydecimal's class: the TypeError names 'Decimal', CPython's C decimal names 'decimal.Decimal'
vat_total = sum(i.total * 1.2 for i in invoices if i.currency == "USD")
print(vat_total)

# %% Decimal and float do not mix: use a Decimal rate
VAT = Decimal("1.20")
vat_total = sum((i.total * VAT for i in invoices if i.currency == "USD"), Decimal(0))
print(f"USD gross incl. VAT: {vat_total:,.2f}")

# %% invoice dates as date objects (month first, as in the US)
from datetime import date
first_dates = []
for i in invoices[:5]:
    mm, dd, yyyy = map(int, i.date.split("/"))
    first_dates.append(date(yyyy, mm, dd))
print(first_dates)

# %% dates are DD/MM/YYYY: the oldest overdue invoices
from datetime import datetime
overdue = sorted(
    (i for i in invoices if i.status == "OVERDUE"),
    key=lambda i: (datetime.strptime(i.date, "%d/%m/%Y"), i.number),
)
for i in overdue[:3]:
    print(i.number, i.vendor, i.date, i.currency, i.total)

# %% ask the sub-LLM about the disputed ones, a batch of 20 invoices per prompt
disputed = [b for b, i in zip(blocks, invoices) if i.status == "DISPUTED"]
batches = [disputed[k:k + 20] for k in range(0, len(disputed), 20)]
print(len(disputed), "disputed in", len(batches), "batches")
replies = llm_query_batched(["Summarise what these disputed invoices are for:\n\n" + "\n\n".join(b) for b in batches])
print(replies[:3])

# %% the items behind the disputes, counted locally
items = Counter(name for i in invoices if i.status == "DISPUTED" for name, _, _ in i.lines)
print(items.most_common(3))

# %% final dict with strings for money
result = {
    vendor: {cur: f"{amt:.2f}" for cur, amt in sorted(by_cur.items())}
    for vendor, by_cur in sorted(owed.items())
}
SUBMIT(owed_by_vendor=result, invoices=len(invoices), disputed=len(disputed), top_disputed_item=items.most_common(1)[0][0])
