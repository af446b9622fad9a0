# CodeAct: the loops models write over frames and arrays: iterrows, itertuples, items, zip over columns, groupby loops.
# %% a small ledger
import pandas as pd
import numpy as np
ledger = pd.DataFrame({"account": ["cash", "bank", "cash", "card", "bank", "card"], "amount": [120.0, -45.5, 30.25, -80.0, 200.0, -15.75], "memo": ["sale", "fee", "tip", "supplies", "deposit", "coffee"]})
print(ledger)
# %% iterrows in a for loop
for i, row in ledger.iterrows():
    if row["amount"] < 0:
        print(i, row["account"], row["amount"])
print("done")
# %% iterrows through a variable
rows = ledger.iterrows()
negatives = []
for i, row in rows:
    if row["amount"] < 0:
        negatives.append((i, row["memo"]))
negatives
# %% a comprehension over items()
[name for name, col in ledger.items()]
# %% items through list()
for name, col in list(ledger.items()):
    print(name, col.dtype)
# %% itertuples
for rec in ledger.itertuples(index=False):
    print(rec.account, rec.amount)
# %% zip over columns
balance = {}
for acct, amt in zip(ledger["account"], ledger["amount"]):
    balance[acct] = balance.get(acct, 0.0) + amt
print({k: round(v, 2) for k, v in sorted(balance.items())})
# %% to_dict records
for rec in ledger.to_dict("records")[:3]:
    print(rec)
# %% groupby loops
for acct, group in ledger.groupby("account"):
    print(f"{acct:<5} n={len(group)} total={group['amount'].sum():8.2f}")
# %% enumerate over a numpy array
arr = ledger["amount"].to_numpy()
for k, v in enumerate(arr[:3]):
    print(k, v, type(v).__name__)
# %% a generator expression over a Series
print(sum(1 for a in ledger["amount"] if a > 0))
print(max(ledger["memo"], key=len))
# %% a generator expression over iterrows
sum(1 for _, r in ledger.iterrows() if r["amount"] > 0)
# %% a namedtuple's fields become columns
from collections import namedtuple
Entry = namedtuple("Entry", ["account", "amount"])
extra = pd.DataFrame([Entry("cash", 5.0), Entry("bank", 7.5)])
print(list(extra.columns))
# %% the same with dicts
extra = pd.DataFrame([{"account": "cash", "amount": 5.0}, {"account": "bank", "amount": 7.5}])
combined = pd.concat([ledger, extra], ignore_index=True)
print(combined.groupby("account")["amount"].sum().round(2).to_dict())
# %% a vectorised rewrite of the loop
signed = np.where(ledger["amount"] >= 0, "in", "out")
print(pd.Series(signed).value_counts().to_dict())
ledger.assign(direction=signed).groupby("direction")["amount"].agg(["count", "sum"])
