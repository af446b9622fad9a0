# CodeAct: join orders, customers and products, then pivot revenue by region and category, with the usual merge mistakes.
# %% the three tables
import pandas as pd
import numpy as np
customers = pd.DataFrame({"customer_id": [1, 2, 3, 4, 5], "name": ["Ada", "Ben", "Cho", "Dev", "Eli"], "region": ["EU", "US", "EU", "APAC", "US"]})
products = pd.DataFrame({"sku": ["P1", "P2", "P3", "P4"], "category": ["tools", "toys", "tools", "garden"], "unit_price": [12.5, 8.0, 30.0, 15.25]})
orders = pd.DataFrame({
    "order_id": range(101, 113),
    "customer_id": [1, 2, 2, 3, 5, 1, 4, 6, 3, 2, 5, 1],
    "sku": ["P1", "P2", "P3", "P1", "P4", "P3", "P2", "P1", "P4", "P4", "P1", "P2"],
    "qty": [2, 5, 1, 3, 4, 1, 10, 2, 2, 1, 6, 3],
    "month": ["Jan", "Jan", "Jan", "Feb", "Feb", "Feb", "Feb", "Mar", "Mar", "Mar", "Mar", "Mar"],
})
print(customers.shape, products.shape, orders.shape)
# %% merge on a column that is not in both
orders.merge(products, on="product_sku")
# %% inner merges
full = orders.merge(products, on="sku").merge(customers, on="customer_id", how="inner")
full["revenue"] = full["qty"] * full["unit_price"]
print(len(orders), "->", len(full))
print(full.head(6).to_string(index=False))
# %% which order was lost: an anti-join with indicator
check = orders.merge(customers, on="customer_id", how="left", indicator=True)
print(check.loc[check["_merge"] != "both", ["order_id", "customer_id", "_merge"]])
check["_merge"].value_counts()
# %% revenue pivot by region and category
pivot = full.pivot_table(index="region", columns="category", values="revenue", aggfunc="sum", fill_value=0, margins=True)
print(pivot)
# %% month order is alphabetical by default, fix it with a categorical
month_order = ["Jan", "Feb", "Mar"]
full["month"] = pd.Categorical(full["month"], categories=month_order, ordered=True)
monthly = full.pivot_table(index="month", columns="region", values="qty", aggfunc="sum", observed=False)
print(monthly)
# %% crosstab of order counts
pd.crosstab(full["region"], full["category"])
# %% melt back to long form
long = monthly.reset_index().melt(id_vars="month", var_name="region", value_name="qty")
print(long.sort_values(["region", "month"]).to_string(index=False))
# %% top customers with named aggregations
per_customer = full.groupby(["customer_id", "name"], as_index=False).agg(orders=("order_id", "nunique"), units=("qty", "sum"), revenue=("revenue", "sum"))
print(per_customer.nlargest(3, "revenue"))
# %% concat a late order and one with a new column
late = pd.DataFrame({"order_id": [113], "customer_id": [4], "sku": ["P3"], "qty": [2], "month": ["Mar"], "coupon": ["SPRING"]})
both = pd.concat([orders, late], ignore_index=True)
print(both.tail(3))
print(both["coupon"].notna().sum())
# %% a merge that validates one-to-one fails on duplicates
orders.merge(customers, on="customer_id", validate="one_to_one")
# %% share of revenue per region
share = full.groupby("region")["revenue"].sum() / full["revenue"].sum()
print(share.sort_values(ascending=False).map("{:.1%}".format))
# %% stack and unstack
by_rc = full.groupby(["region", "category"])["qty"].sum()
print(by_rc.unstack(fill_value=0))
by_rc.unstack().stack().size
