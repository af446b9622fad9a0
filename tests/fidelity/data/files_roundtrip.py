# CodeAct: save intermediate results to files in the working directory and read them back: CSV, JSON, .npy, text.
# %% build the data
import os
import json
import numpy as np
import pandas as pd
df = pd.DataFrame({"city": ["Lyon", "Oslo", "Lima", "Pune"], "temp_c": [14.5, 3.2, 19.8, 27.1], "rain_mm": [52, 70, 1, 8], "coastal": [False, True, True, False]})
print(sorted(os.listdir(".")))
df
# %% write and read a CSV
df.to_csv("weather.csv", index=False)
print(open("weather.csv").read())
back = pd.read_csv("weather.csv")
print(back.dtypes)
print(back.equals(df))
# %% CSV with an index and a different separator
df.set_index("city").to_csv("weather_semicolon.csv", sep=";")
text = open("weather_semicolon.csv").read()
print(text.splitlines()[:2])
pd.read_csv("weather_semicolon.csv", sep=";", index_col="city").loc["Oslo"]
# %% reading a file that is not there
pd.read_csv("weather_2023.csv")
# %% JSON records
df.to_json("weather.json", orient="records")
with open("weather.json") as fh:
    records = json.load(fh)
print(records[0])
print(pd.read_json("weather.json").shape)
# %% JSON with another orient
df.to_json("weather_cols.json", orient="columns", indent=1)
print(open("weather_cols.json").read()[:160])
pd.read_json("weather_cols.json")["rain_mm"].sum()
# %% numpy binary files
grid = np.arange(12, dtype=np.float64).reshape(3, 4) / 4
np.save("grid.npy", grid)
loaded = np.load("grid.npy")
print(loaded)
print(loaded.dtype, loaded.shape, np.array_equal(grid, loaded))
# %% several arrays in one npz
np.savez("bundle.npz", temps=df["temp_c"].to_numpy(), rain=df["rain_mm"].to_numpy())
with np.load("bundle.npz") as bundle:
    print(sorted(bundle.files))
    print(bundle["rain"].sum(), bundle["temps"].max())
# %% text files with savetxt and loadtxt
np.savetxt("grid.txt", grid, fmt="%.2f", delimiter=",", header="a,b,c,d")
print(open("grid.txt").read())
again = np.loadtxt("grid.txt", delimiter=",", skiprows=1)
again.sum()
# %% loadtxt on a ragged file fails
with open("ragged.txt", "w") as fh:
    fh.write("1,2,3\n4,5\n")
np.loadtxt("ragged.txt", delimiter=",")
# %% genfromtxt fills the gaps
with open("gappy.csv", "w") as fh:
    fh.write("x,y\n1,2\n3,\n5,6\n")
arr = np.genfromtxt("gappy.csv", delimiter=",", skip_header=1)
print(arr)
print(np.nanmean(arr, axis=0))
# %% loadtxt from an open handle
with open("pairs.txt", "w") as fh:
    fh.write("# x y\n1 2\n3 4\n5 6\n")
with open("pairs.txt") as fh:
    pairs = np.loadtxt(fh)
print(pairs)
pairs.mean(axis=0)
# %% write a summary JSON with plain Python numbers
summary = {
    "n_cities": len(df),
    "mean_temp": float(df["temp_c"].mean()),
    "wettest": df.loc[df["rain_mm"].idxmax(), "city"],
    "coastal": int(df["coastal"].sum()),
}
with open("summary.json", "w") as fh:
    json.dump(summary, fh, indent=2)
print(open("summary.json").read())
# %% json.dumps of numpy values without conversion
json.dumps({"total_rain": df["rain_mm"].sum()})
# %% the files made
names = sorted(os.listdir("."))
print(names)
print(all(os.path.getsize(n) > 0 for n in names if n.endswith((".csv", ".json", ".npy"))))
