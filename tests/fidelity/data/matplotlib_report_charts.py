# CodeAct: make report charts with matplotlib (line, bar, histogram, subplots, scatter) and check the files were written.
# %% backend and data
import os
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
rng = np.random.Generator(np.random.PCG64(7))
months = pd.date_range("2023-01-01", periods=12, freq="MS")
revenue = pd.Series((100 + np.cumsum(rng.normal(5, 10, 12))).round(1), index=months, name="revenue")
print(matplotlib.get_backend())
print(revenue.head(4))
# %% a line chart
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(revenue.index, revenue.values, marker="o", label="revenue")
ax.set_title("Monthly revenue")
ax.set_xlabel("month")
ax.set_ylabel("k$")
ax.legend()
fig.tight_layout()
fig.savefig("revenue.png")
plt.close(fig)
print(os.path.exists("revenue.png"), os.path.getsize("revenue.png") > 0)
# %% what the axes held
fig, ax = plt.subplots()
line, = ax.plot([1, 2, 3], [4, 1, 9], "r--")
print(ax.get_xlim() == ax.get_xlim(), line.get_color(), line.get_linestyle())
print(list(line.get_ydata()))
ax.set_xlim(0, 4)
print(ax.get_xlim())
plt.close(fig)
# %% a bar chart from a groupby
sales = pd.DataFrame({"region": ["N", "S", "E", "W", "N", "S", "E"], "amount": [120, 80, 95, 60, 30, 45, 70]})
totals = sales.groupby("region")["amount"].sum().sort_values()
ax = totals.plot(kind="bar", color="steelblue", title="Sales by region")
ax.set_ylabel("amount")
plt.savefig("bars.png", dpi=80)
plt.close()
print(totals.to_dict())
print(os.path.getsize("bars.png") > 0)
# %% a histogram with numpy's counts alongside
values = rng.normal(50, 12, 400)
counts, edges = np.histogram(values, bins=8)
print(counts.tolist(), int(counts.sum()))
plt.figure(figsize=(6, 4))
n, bins, patches = plt.hist(values, bins=8, edgecolor="black")
print(np.array_equal(n, counts), len(patches))
plt.close()
# %% the histogram through pandas
plt.close("all")
ax = pd.Series(values).plot(kind="hist", bins=8, edgecolor="black", title="values")
print(type(ax).__name__, ax.get_title(), len(ax.patches))
plt.savefig("hist.png")
plt.close()
# %% subplots grid
fig, axes = plt.subplots(2, 2, figsize=(8, 6), sharex=True)
print(axes.shape, type(axes).__name__)
x = np.linspace(0, 2 * np.pi, 50)
for ax, fn in zip(axes.flat, [np.sin, np.cos, np.tanh, np.exp]):
    ax.plot(x, fn(x))
    ax.set_title(fn.__name__)
fig.suptitle("four functions")
fig.savefig("grid.png")
plt.close(fig)
print(os.path.exists("grid.png"))
# %% scatter with a fitted line
xs = rng.uniform(0, 10, 30)
ys = 2.5 * xs + rng.normal(0, 2, 30)
m, c = np.polyfit(xs, ys, 1)
plt.scatter(xs, ys, s=12, alpha=0.7)
plt.plot(np.sort(xs), m * np.sort(xs) + c, color="k")
plt.title(f"y = {m:.2f}x + {c:.2f}")
plt.savefig("scatter.png")
print(plt.gca().get_title())
plt.close("all")
# %% a wrong keyword argument
plt.plot([1, 2, 3], colour="red")
# %% the open figures after the error
print(plt.get_fignums())
plt.close("all")
print(plt.get_fignums())
# %% pandas plotting of a frame
frame = pd.DataFrame({"a": [1, 3, 2, 5], "b": [2, 2, 4, 3]}, index=list("wxyz"))
ax = frame.plot(title="two series")
print(ax.get_title(), len(ax.lines))
plt.savefig("frame.png")
plt.close()
# %% the legend's labels
print([t.get_text() for t in ax.get_legend().get_texts()])
# %% the legend through its handles
handles, labels = ax.get_legend_handles_labels()
print(labels, len(handles))
# %% the files
pngs = sorted(f for f in os.listdir(".") if f.endswith(".png"))
print(pngs)
print(all(os.path.getsize(f) > 0 for f in pngs))
with open("revenue.png", "rb") as fh:
    print(fh.read(8))
