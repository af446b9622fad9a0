# ProgramOfThought warm-up with numpy: arrays, dtypes, boolean masks, argsort, reshaping, and a broadcasting mistake.
# %% build arrays
import numpy as np
scores = np.array([72, 88, 95, 61, 79, 84, 90, 55, 68, 93])
print(scores)
print(scores.dtype, scores.shape, scores.ndim)
scores.mean()
# %% summary statistics as f-strings
print(f"mean={scores.mean():.2f} std={scores.std():.3f} median={np.median(scores)}")
print(f"min={scores.min()} max={scores.max()} range={np.ptp(scores)}")
print(f"sum is {scores.sum()} of type {type(scores.sum()).__name__}")
# %% boolean masks
passed = scores >= 70
print(passed)
print("passed:", passed.sum(), "of", passed.size)
print(scores[passed])
print(scores[(scores > 60) & (scores < 80)])
np.where(scores >= 90, "A", np.where(scores >= 75, "B", "C"))
# %% argsort and ranking
order = np.argsort(scores)
print(order)
print(scores[order][::-1][:3])
top3 = np.argsort(-scores)[:3]
print("top indices:", top3.tolist())
ranks = scores.argsort().argsort() + 1
ranks
# %% reshape into a grid
grid = np.arange(1, 13).reshape(3, 4)
print(grid)
print("row sums:", grid.sum(axis=1))
print("col means:", grid.mean(axis=0))
grid.T
# %% broadcasting
col = np.array([[1], [10], [100]])
print(grid * col)
print(grid - grid.mean(axis=0))
# %% a shape mismatch the model makes
weights = np.array([0.2, 0.3, 0.5])
weighted = grid * weights
print(weighted)
# differs: the error message loses numpy's trailing space after "(3,)"
# %% fix it with a column vector
weighted = grid * weights[:, None]
print(weighted.round(2))
weighted.sum()
# %% cumulative operations and diff
daily = np.array([3, 5, 2, 8, 6, 9, 4])
print(np.cumsum(daily))
print(np.diff(daily))
print(np.cumprod([1.1, 1.2, 0.9]))
np.percentile(daily, [25, 50, 75])
# %% special values
vals = np.array([1.5, np.nan, 3.0, np.inf, -2.0])
print(np.isnan(vals), np.isinf(vals))
print(np.nanmean(vals[np.isfinite(vals) | np.isnan(vals)]))
print(np.nansum(np.where(np.isinf(vals), np.nan, vals)))
with np.errstate(divide="ignore"):
    print(np.array([1, 2, 3]) / 0)
# %% division by zero warns
ratio = np.array([1.0, 2.0]) / np.array([0.0, 4.0])
print(ratio)
# %% isinstance and conversions
x = scores[0]
print(isinstance(x, np.integer), isinstance(x, int), isinstance(float(scores.mean()), float))
print(type(x.item()).__name__, repr(scores.tolist()[:3]))
print(np.float64(2.5) * 2, np.int64(7) // 2, np.float32(0.1))
repr(np.float64(1) / 3)
# %% explicit dtypes with builtin types
prices = np.array([3, 4, 5], dtype=float)
flags = np.zeros(3, dtype=bool)
print(prices / 2, flags, np.arange(3).astype(str))
# %% explicit dtypes with numpy types and strings
prices = np.array([3, 4, 5], dtype=np.float64)
flags = np.zeros(3, dtype="bool")
print(prices / 2, flags, prices.astype(np.int32).dtype, np.array([1.9, -1.9]).astype("int64"))
print(np.dtype("float32").itemsize, prices.nbytes, np.iinfo(np.int16).max, np.finfo(np.float64).eps)
# %% unique and counts
labels = np.array(["b", "a", "c", "a", "b", "a"])
values, counts = np.unique(labels, return_counts=True)
print(dict(zip(values.tolist(), counts.tolist())))
print(np.unique(labels, return_inverse=True)[1])
np.bincount([0, 1, 1, 3, 3, 3])
