# RLM over a sensor log: parse timestamps, resample to hourly and daily, rolling means, gaps and anomalies.
# variables: log_lines = ["2024-03-01 00:05:00,temp,21.4", "2024-03-01 00:35:00,temp,21.9", "2024-03-01 01:10:00,temp,22.3", "2024-03-01 01:50:00,temp,23.8", "2024-03-01 02:15:00,temp,24.1", "2024-03-01 04:40:00,temp,22.0", "2024-03-01 05:05:00,temp,35.6", "2024-03-01 05:30:00,temp,21.2", "2024-03-01 06:45:00,temp,20.8", "2024-03-02 00:20:00,temp,19.9", "2024-03-02 03:00:00,temp,20.4", "2024-03-02 07:30:00,temp,22.7", "2024-03-01 00:05:00,hum,41", "2024-03-01 02:15:00,hum,44", "2024-03-01 05:05:00,hum,47", "2024-03-02 03:00:00,hum,52"]
# %% peek at the context
print(len(log_lines))
print(log_lines[:3])
# %% parse into a frame
import pandas as pd
import numpy as np
rows = [line.split(",") for line in log_lines]
df = pd.DataFrame(rows, columns=["ts", "sensor", "value"])
df["ts"] = pd.to_datetime(df["ts"])
df["value"] = pd.to_numeric(df["value"])
print(df.dtypes)
df.head()
# %% temperature series indexed by time
temp = df[df["sensor"] == "temp"].set_index("ts")["value"].sort_index()
print(temp.index.min(), "->", temp.index.max())
print(temp.index.to_series().diff().max())
temp.describe()
# %% hourly means
hourly = temp.resample("h").mean()
print(hourly.head(8))
print("empty hours:", int(hourly.isna().sum()))
# %% daily aggregates
daily = temp.resample("D").agg(["count", "mean", "min", "max"])
print(daily.round(2))
# %% rolling mean over three readings and a z-score flag
roll = temp.rolling(3, min_periods=1).mean()
z = (temp - temp.mean()) / temp.std()
flagged = pd.DataFrame({"value": temp, "roll3": roll.round(2), "z": z.round(2)})
print(flagged[flagged["z"].abs() > 2])
# %% time-based rolling window
print(temp.rolling("2h").max().head(6))
# %% gaps longer than two hours
gaps = temp.index.to_series().diff()
print(gaps[gaps > pd.Timedelta(hours=2)])
# %% date parts
parts = pd.DataFrame({"day": temp.index.day_name(), "hour": temp.index.hour, "value": temp.values})
print(parts.groupby("day")["value"].mean().round(3))
# %% pivot the sensors side by side
wide = df.pivot_table(index=df["ts"].dt.floor("D"), columns="sensor", values="value", aggfunc="mean")
print(wide.round(2))
# %% a date that does not parse
pd.to_datetime(["2024-03-01", "2024-02-30"])
# %% coerce it instead
dates = pd.to_datetime(pd.Series(["2024-03-01", "2024-02-30", "not a date"]), errors="coerce")
print(dates)
print(dates.isna().tolist())
# %% shift, pct_change and date ranges
idx = pd.date_range("2024-01-01", periods=6, freq="W-MON")
sales = pd.Series([100, 120, 90, 150, 160, 140], index=idx)
print(pd.DataFrame({"sales": sales, "prev": sales.shift(1), "pct": sales.pct_change().round(3)}))
print(idx.strftime("%d %b").tolist())
# %% the answer
peak_ts = temp.idxmax()
print(f"peak {temp.max()} at {peak_ts:%Y-%m-%d %H:%M} ({peak_ts.day_name()})")
str(peak_ts)
