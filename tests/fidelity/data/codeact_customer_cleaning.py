# CodeAct: clean a messy customer export with pandas: whitespace, casing, bad numbers, dates, duplicates and missing values.
# variables: raw_csv = "id,name,email,signup,plan,monthly_fee,country\n1, Alice Smith ,ALICE@EXAMPLE.COM,2023-01-15,Pro,29.99,US\n2,bob jones,bob@example.com,2023/02/03,basic,9.99,us\n3,Carol White,carol@example,2023-02-20,PRO,29.99,UK\n4,Dan Brown,,2023-03-05,Basic,n/a,DE\n5,Eve Black,eve@example.com,,pro,$29.99,uk\n2,bob jones,bob@example.com,2023/02/03,basic,9.99,us\n6,Frank Green,frank@example.com,2023-04-11,Enterprise,199,US\n7,  grace hall,GRACE@example.com,2023-04-30,basic,9.99, De\n"
# %% load the export
import io
import pandas as pd
import numpy as np
df = pd.read_csv(io.StringIO(raw_csv))
print(df.shape)
print(df.dtypes)
# %% look at the raw rows
print(df.to_string())
# %% count the problems
print("missing per column:")
print(df.isna().sum())
print("duplicated rows:", df.duplicated().sum())
# %% drop the exact duplicates
df = df.drop_duplicates().reset_index(drop=True)
len(df)
# %% tidy the text columns
df["name"] = df["name"].str.strip().str.title()
df["email"] = df["email"].str.strip().str.lower()
df["plan"] = df["plan"].str.strip().str.capitalize()
df["country"] = df["country"].str.strip().str.upper()
print(df[["name", "email", "plan", "country"]])
# %% the fee column is text, converting it fails
df["monthly_fee"].astype(float)
# %% strip currency signs and coerce the rest
fee = df["monthly_fee"].str.replace("$", "", regex=False)
df["monthly_fee"] = pd.to_numeric(fee, errors="coerce")
print(df["monthly_fee"].tolist())
print(df["monthly_fee"].dtype)
# %% parse the mixed date formats
df["signup"] = pd.to_datetime(df["signup"].str.replace("/", "-"), format="%Y-%m-%d", errors="coerce")
print(df[["id", "signup"]])
print(df["signup"].dt.month.value_counts().sort_index())
# %% validate the emails
valid = df["email"].str.contains(r"^[\w.]+@[\w]+\.[a-z]{2,}$", regex=True, na=False)
print(df.loc[~valid, ["id", "email"]])
df.loc[~valid, "email"] = np.nan
df["email"].isna().sum()
# %% fill the missing fee from the plan's median
plan_median = df.groupby("plan")["monthly_fee"].transform("median")
df["monthly_fee"] = df["monthly_fee"].fillna(plan_median)
print(df[["id", "plan", "monthly_fee"]])
# %% the frame's info and a describe of every column
df.info()
print(df.describe(include="all").loc[["count", "unique", "top"]].to_string())
# %% summary by plan
summary = df.groupby("plan").agg(customers=("id", "count"), revenue=("monthly_fee", "sum"), first_signup=("signup", "min"))
print(summary.sort_values("revenue", ascending=False))
# %% the report for the caller
import json
report = {
    "rows": int(len(df)),
    "missing_email": int(df["email"].isna().sum()),
    "mrr": round(float(df["monthly_fee"].sum()), 2),
    "by_country": {k: int(v) for k, v in df["country"].value_counts().items()},
}
print(json.dumps(report, indent=2, sort_keys=True))
