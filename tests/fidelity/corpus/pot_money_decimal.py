# ProgramOfThought over money word problems: Decimal, quantize, rounding modes, formatting, a float/Decimal mix-up.
# %% compound interest with floats first
principal = 12_500
rate = 0.045
years = 7
amount = principal * (1 + rate) ** years
print(f"Amount after {years} years: {amount}")
print(f"Rounded: {amount:.2f}")
print(f"With separators: {amount:,.2f}")
interest = amount - principal
print(f"Interest earned: ${interest:,.2f}")

# %% redo it with Decimal for exact cents
from decimal import Decimal, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, getcontext
getcontext().prec = 28
P = Decimal("12500")
r = Decimal("0.045")
A = P * (1 + r) ** years
print(A)
cents = Decimal("0.01")
print(A.quantize(cents, rounding=ROUND_HALF_UP))
print(A.quantize(cents, rounding=ROUND_DOWN))
print(repr(A.quantize(cents)))

# %% monthly compounding mixed with a float rate (mistake)
# differs: Decimal TypeError names the type 'Decimal' instead of 'decimal.Decimal'
monthly_rate = rate / 12
A_monthly = P * (1 + monthly_rate) ** (12 * years)
A_monthly

# %% fix: keep everything Decimal
monthly_rate = r / 12
print(monthly_rate)
A_monthly = P * (1 + monthly_rate) ** (12 * years)
print(A_monthly.quantize(cents, rounding=ROUND_HALF_UP))
diff = A_monthly - A
print(f"Monthly compounding earns {diff.quantize(cents)} more")

# %% loan amortisation schedule (first and last rows)
def payment(principal: Decimal, annual_rate: Decimal, months: int) -> Decimal:
    i = annual_rate / 12
    return (principal * i / (1 - (1 + i) ** -months)).quantize(cents, rounding=ROUND_HALF_UP)

loan = Decimal("250000")
pmt = payment(loan, Decimal("0.0625"), 360)
print("Monthly payment:", pmt)
balance = loan
schedule = []
for month in range(1, 361):
    interest_part = (balance * Decimal("0.0625") / 12).quantize(cents, rounding=ROUND_HALF_UP)
    principal_part = pmt - interest_part
    if month == 360:
        principal_part = balance
    balance -= principal_part
    schedule.append((month, interest_part, principal_part, balance))
for row in schedule[:3] + schedule[-3:]:
    print("{:>3}  interest={:>9}  principal={:>9}  balance={:>11}".format(*row))
total_interest = sum(row[1] for row in schedule)
print(f"Total interest: {total_interest:,}")

# %% rounding half-even vs half-up on price splits
prices = [Decimal(x) for x in ["2.675", "1.005", "0.125", "0.135", "10.445"]]
for p in prices:
    print(p, p.quantize(cents, ROUND_HALF_UP), p.quantize(cents, ROUND_HALF_EVEN), round(float(p), 2))

# %% split a bill three ways without losing a cent
bill = Decimal("100.00")
people = 3
share = (bill / people).quantize(cents, rounding=ROUND_DOWN)
shares = [share] * people
remainder = bill - sum(shares)
k = int(remainder / cents)
for i in range(k):
    shares[i] += cents
print(shares, sum(shares), sum(shares) == bill)

# %% tax and tip, formatted as percentages
subtotal = Decimal("84.37")
tax_rate = Decimal("0.0825")
tip_rate = Decimal("0.18")
tax = (subtotal * tax_rate).quantize(cents, ROUND_HALF_UP)
tip = (subtotal * tip_rate).quantize(cents, ROUND_HALF_UP)
total = subtotal + tax + tip
print(f"tax {float(tax_rate):.2%} -> {tax}")
print(f"tip {float(tip_rate):.0%} -> {tip}")
print(f"total {total}  ({total:>10})  [{total:<10}]  {total:010.2f}")
print(Decimal("1234567.891").quantize(cents), f"{Decimal('1234567.891'):,.2f}")

# %% Decimal special values and comparisons
print(Decimal("1.10") == Decimal("1.1"), Decimal("1.10"), Decimal("1.1").normalize(), Decimal("100").normalize())
print(Decimal(0.1))
print(Decimal("0.1") + Decimal("0.2") == Decimal("0.3"))
print(Decimal("1") / Decimal("7"))
print(Decimal(2).sqrt(), Decimal("1e3").to_integral_value(), Decimal("-0"), Decimal("7.50").as_tuple())
Decimal("3.14159").quantize(Decimal("0.001"))

# %% parse prices quoted in a receipt (mistake: currency symbol left in)
receipt = """coffee   $4.99
bagel    $2.25
juice    $3.75"""
items = [line.split() for line in receipt.splitlines()]
line_prices = [Decimal(price) for _, price in items]

# %% fix: strip the symbol
line_prices = [Decimal(price.lstrip("$")) for _, price in items]
print(line_prices, sum(line_prices), f"${sum(line_prices):.2f}", max(zip(line_prices, (name for name, _ in items))))

# %% division by zero in a per-unit price
units = {"widgets": 12, "gadgets": 0, "gizmos": 5}
costs = {"widgets": Decimal("59.88"), "gadgets": Decimal("0.00"), "gizmos": Decimal("12.50")}
per_unit = {k: costs[k] / units[k] for k in units}
per_unit

# %% fix: skip zero quantities
per_unit = {k: (costs[k] / units[k]).quantize(cents) for k in units if units[k]}
print(per_unit)
best = min(per_unit, key=per_unit.get)
SUBMIT(answer=f"{best} at ${per_unit[best]} per unit; loan payment ${pmt}; split {shares}")
