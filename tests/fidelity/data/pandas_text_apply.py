# CodeAct: normalise product reviews with pandas string methods, apply with lambdas, map, sort_values with key and np.vectorize.
# variables: reviews = [{"id": 1, "product": "  Widget Pro ", "text": "Great value!! Works as expected.", "stars": "5", "date": "2024-01-03"}, {"id": 2, "product": "widget pro", "text": "Broke after 2 days :(", "stars": "1", "date": "2024-01-05"}, {"id": 3, "product": "Gadget-X", "text": "ok, not great. Battery 3h", "stars": "3", "date": "2024-01-05"}, {"id": 4, "product": "GADGET-X", "text": "Love it. Battery lasts 10h!", "stars": "5 stars", "date": "2024-01-09"}, {"id": 5, "product": "Doohickey", "text": "", "stars": "4", "date": "2024-01-10"}, {"id": 6, "product": "doohickey ", "text": "Meh. Returned it; refund took 14 days", "stars": "2", "date": "2024-01-12"}, {"id": 7, "product": "Widget Pro", "text": "Second one I buy. 5/5", "stars": "5", "date": "2024-01-15"}]
# %% frame from records
import pandas as pd
import numpy as np
df = pd.DataFrame(reviews)
print(df.shape, list(df.columns))
df[["id", "product", "stars"]]
# %% canonical product names
df["product"] = df["product"].str.strip().str.lower().str.replace("-", " ", regex=False)
print(df["product"].value_counts())
# %% numbers out of text
df["stars_n"] = df["stars"].str.extract(r"(\d)", expand=False).astype("int64")
df["hours"] = df["text"].str.extract(r"(\d+)h", expand=False)
print(df[["stars", "stars_n", "hours"]])
# %% text features
df["n_words"] = df["text"].str.split().str.len()
df["shouting"] = df["text"].str.count("!")
df["has_battery"] = df["text"].str.contains("battery", case=False)
print(df[["id", "n_words", "shouting", "has_battery"]].to_string(index=False))
# %% sentiment with apply and a lambda
positive = {"great", "love", "works", "value"}
negative = {"broke", "meh", "returned", "refund"}
def score(text):
    words = {w.strip(".,!:;()").lower() for w in text.split()}
    return len(words & positive) - len(words & negative)
df["sentiment"] = df["text"].apply(score)
df["label"] = df["sentiment"].apply(lambda s: "pos" if s > 0 else ("neg" if s < 0 else "neutral"))
print(df[["id", "sentiment", "label"]])
# %% a row-wise apply
df["summary"] = df.apply(lambda r: f"{r['product'].title()} ({r['stars_n']}*): {r['label']}", axis=1)
print("\n".join(df["summary"]))
# %% map a dict and replace
tiers = {"widget pro": "premium", "gadget x": "standard", "doohickey": "budget"}
df["tier"] = df["product"].map(tiers)
print(df["tier"].tolist())
df["label"].replace({"pos": "+", "neg": "-", "neutral": "0"}).tolist()
# %% sort with a key
by_len = df.sort_values("text", key=lambda s: s.str.len(), ascending=False)
print(by_len["id"].tolist())
print(df.sort_values(["tier", "stars_n"], ascending=[True, False])[["tier", "stars_n", "id"]].to_string(index=False))
# %% np.vectorize a scalar function
def bucket(stars, words):
    if words == 0:
        return "empty"
    return "long-good" if stars >= 4 and words > 4 else "other"
vbucket = np.vectorize(bucket)
print(vbucket(df["stars_n"].to_numpy(), df["n_words"].to_numpy()))
# %% dates and per-week groups
df["date"] = pd.to_datetime(df["date"])
weekly = df.groupby(df["date"].dt.isocalendar().week)["stars_n"].agg(["count", "mean"])
print(weekly)
# %% the .str accessor on a numeric column
df["stars_n"].str.len()
# %% string joins and get_dummies
print(df.groupby("product")["label"].agg(lambda s: ",".join(sorted(s))))
pd.get_dummies(df["label"], dtype=int).sum()
# %% the report
worst = df.loc[df["sentiment"].idxmin()]
print(f"worst review #{worst['id']}: {worst['text']!r}")
report = df.groupby("tier").agg(reviews=("id", "size"), avg_stars=("stars_n", "mean")).round(2)
report.to_dict(orient="index")
