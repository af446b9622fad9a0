# A first look at a sales table with pandas: a frame from a dict, describe, groupby, value_counts.
# %% build the frame
import pandas as pd
import numpy as np
df = pd.DataFrame({"region": ["north", "south", "north", "east", "south", "east"], "units": [12, 7, 3, 9, 14, 5], "price": [2.5, 3.0, 2.5, 4.0, 3.0, 4.0]})
print(df)
df.shape
# %% describe
print(df.describe())
# %% revenue per region
df["revenue"] = df["units"] * df["price"]
print(df.groupby("region")["revenue"].sum().sort_values(ascending=False))
# %% value counts
df["region"].value_counts()
