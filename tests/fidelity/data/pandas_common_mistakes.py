# CodeAct: the mistakes models make with pandas and numpy and how they recover: wrong columns, truth values, dtypes, indexing.
# %% the frame
import pandas as pd
import numpy as np
df = pd.DataFrame({"Name": ["ann", "bo", "cy", "di"], "Score": [88, 92, 75, 60], "Group": ["a", "b", "a", "b"]})
df
# %% a lowercase column name
df["score"].mean()
# %% list the real columns, then retry
print(df.columns.tolist())
df["Score"].mean()
# %% a KeyError caught and reported
try:
    df[["Name", "Grade"]]
except KeyError as exc:
    print("KeyError:", exc)
# %% a Series in an if statement
if df["Score"] > 80:
    print("good")
# %% any() and all() instead
print((df["Score"] > 80).any(), (df["Score"] > 80).all())
# %% and/or between masks
df[(df["Score"] > 70) and (df["Group"] == "a")]
# %% the & operator without parentheses
df[df["Score"] > 70 & df["Group"] == "a"]
# %% the correct mask
df[(df["Score"] > 70) & (df["Group"] == "a")]
# %% a row label that does not exist
df.loc[10]
# %% iloc past the end
df.iloc[4]
# %% setting a column with the wrong length
df["bonus"] = [1, 2, 3]
# %% attribute access to a missing column
df.Bonus
# %% groupby on a missing key
df.groupby("team")["Score"].mean()
# %% sum of a column with text
df["Name"].sum(), df[["Score", "Name"]].sum().tolist()
# %% the mean of text fails
df["Name"].mean()
# %% numeric_only on the frame
df.mean(numeric_only=True)
# %% a column that looks numeric but is not
raw = pd.DataFrame({"price": ["10", "12.5", "n/a", "7"]})
raw["price"] * 2
# %% to_numeric with errors
pd.to_numeric(raw["price"])
# %% fixed
raw["price"] = pd.to_numeric(raw["price"], errors="coerce")
print(raw["price"].sum(), raw["price"].isna().sum())
raw["price"].fillna(0).tolist()
# %% numpy shape errors
a = np.arange(6)
a.reshape(4, 2)
# %% concatenating arrays of different widths
np.concatenate([np.ones((2, 3)), np.ones((2, 2))])
# %% indexing an array out of bounds
np.arange(5)[7]
# %% int conversion of NaN
int(np.nan)
# %% a dict lookup on a Series by position
s = pd.Series([10, 20, 30], index=["x", "y", "z"])
print(s["y"], s.iloc[0])
s.get("w", "missing")
# %% DataFrame constructor with ragged lists
pd.DataFrame({"a": [1, 2, 3], "b": [4, 5]})
# %% the exception classes
errors = []
for attempt in [lambda: df["nope"], lambda: np.zeros(3) + np.zeros(2), lambda: pd.to_numeric(pd.Series(["x"])), lambda: df.loc[99]]:
    try:
        attempt()
    except Exception as exc:
        errors.append(type(exc).__name__)
errors
