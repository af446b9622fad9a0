# RLM over a long CSV context: probe it as text, load it with pandas, then answer questions with groupby, ranks and quantiles.
# variables: context = "date,store,product,units,unit_price,returned\n" + "\n".join(f"2024-{1 + i % 6:02d}-{1 + (i * 7) % 28:02d},{['Berlin', 'Paris', 'Madrid', 'Rome'][(i // 5) % 4]},{['kettle', 'toaster', 'blender', 'mixer', 'grill'][(i * 3) % 5]},{1 + (i * 13) % 9},{[24.99, 39.5, 59.0, 89.9, 129.0][(i * 3) % 5]},{'yes' if i % 17 == 0 else 'no'}" for i in range(480))
# %% probe the context as text
print(type(context).__name__, len(context))
lines = context.splitlines()
print(len(lines))
print("\n".join(lines[:4]))
# %% load it
import io
import pandas as pd
import numpy as np
df = pd.read_csv(io.StringIO(context), parse_dates=["date"])
print(df.shape)
print(df.dtypes.to_string())
# %% sanity checks
print(df.isna().sum().sum(), df.duplicated().sum())
print(df["returned"].value_counts().to_dict())
print(df["date"].min().date(), df["date"].max().date())
# %% revenue, excluding returns
df["revenue"] = np.where(df["returned"] == "yes", 0.0, df["units"] * df["unit_price"])
print(f"total revenue: {df['revenue'].sum():,.2f}")
print(f"returned units: {df.loc[df['returned'] == 'yes', 'units'].sum()}")
# %% per store
stores = df.groupby("store").agg(orders=("units", "size"), units=("units", "sum"), revenue=("revenue", "sum"))
stores["avg_order"] = (stores["revenue"] / stores["orders"]).round(2)
print(stores.sort_values("revenue", ascending=False))
# %% per month and store
monthly = df.pivot_table(index=df["date"].dt.to_period("M"), columns="store", values="revenue", aggfunc="sum")
print(monthly.round(0))
# %% best month per store
best = monthly.idxmax()
print(best.astype(str).to_dict())
# %% product ranking with rank()
prod = df.groupby("product")["revenue"].sum()
ranking = pd.DataFrame({"revenue": prod.round(2), "rank": prod.rank(ascending=False).astype("int64")}).sort_values("rank")
print(ranking)
# %% quantiles of order size
print(df["units"].quantile([0.1, 0.5, 0.9]).to_dict())
df["size"] = pd.cut(df["units"], bins=[0, 3, 6, 9], labels=["small", "medium", "large"])
print(df["size"].value_counts().sort_index())
# %% the top five orders with nlargest
print(df.nlargest(5, "revenue")[["date", "store", "product", "units", "revenue"]].to_string(index=False))
# %% a cumulative share curve
by_prod = prod.sort_values(ascending=False)
share = (by_prod.cumsum() / by_prod.sum()).round(3)
print(share)
print("products for 80%:", int((share < 0.8).sum()) + 1)
# %% weekday pattern
wd = df.groupby(df["date"].dt.day_name())["units"].sum()
order = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
print(wd.reindex(order, fill_value=0))
# %% a question about a store that is not in the data
df.groupby("store").get_group("Lisbon")
# %% the final answer
answer = {
    "total_revenue": round(float(df["revenue"].sum()), 2),
    "best_store": str(stores["revenue"].idxmax()),
    "best_product": str(prod.idxmax()),
    "return_rate": round(float((df["returned"] == "yes").mean()), 4),
}
FINAL(answer)
