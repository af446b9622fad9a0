# ProgramOfThought: seeded simulations with numpy's generators: dice, bootstrap, Monte Carlo pi, a random walk.
# %% a seeded generator
import numpy as np
rng = np.random.default_rng(42)
print(rng.integers(1, 7, size=10))
print(rng.random(3).round(4))
print(type(rng).__name__)
# %% the same seed gives the same numbers
a = np.random.default_rng(123).normal(size=4)
b = np.random.default_rng(123).normal(size=4)
print(np.array_equal(a, b), a.round(5))
# %% two dice, ten thousand throws
rng = np.random.default_rng(2024)
throws = rng.integers(1, 7, size=(10_000, 2))
totals = throws.sum(axis=1)
freq = np.bincount(totals, minlength=13)[2:]
print(freq.tolist())
print(f"P(sum=7) ~ {np.mean(totals == 7):.4f} (exact {6/36:.4f})")
# %% the explicit bit generator
from numpy.random import Generator, PCG64
rng = Generator(PCG64(2024))
same = rng.integers(1, 7, size=(10_000, 2)).sum(axis=1)
print(type(rng).__name__, type(rng.bit_generator).__name__)
print(np.bincount(same, minlength=13)[2:].tolist())
# %% Monte Carlo estimate of pi
rng = Generator(PCG64(0))
pts = rng.random((200_000, 2))
inside = (pts ** 2).sum(axis=1) <= 1.0
pi_hat = 4 * inside.mean()
print(f"pi ~ {pi_hat:.4f}, error {abs(pi_hat - np.pi):.4f}")
# %% bootstrap confidence interval of the median
rng = Generator(PCG64(11))
sample = rng.exponential(scale=3.0, size=60)
boots = np.array([np.median(rng.choice(sample, size=sample.size, replace=True)) for _ in range(2000)])
lo, hi = np.percentile(boots, [2.5, 97.5])
print(f"median {np.median(sample):.3f}, 95% CI ({lo:.3f}, {hi:.3f})")
# %% a random walk and its maximum drawdown
rng = Generator(PCG64(5))
steps = rng.choice([-1, 1], size=500, p=[0.48, 0.52])
walk = np.cumsum(steps)
running_max = np.maximum.accumulate(walk)
drawdown = running_max - walk
print(walk[-1], walk.max(), walk.min(), drawdown.max())
print(int(np.argmax(walk)), int((walk == 0).sum()))
# %% shuffle and permutation
rng = Generator(PCG64(99))
deck = np.arange(10)
rng.shuffle(deck)
print(deck)
print(rng.permutation(["a", "b", "c", "d"]))
rng.choice(5, size=3, replace=False)
# %% sampling from distributions
rng = Generator(PCG64(3))
draws = {"uniform": rng.uniform(0, 1, 5000), "normal": rng.normal(10, 2, 5000), "poisson": rng.poisson(4, 5000), "binomial": rng.binomial(20, 0.3, 5000)}
for name, d in draws.items():
    print(f"{name:<9} mean={d.mean():7.3f} var={d.var():7.3f}")
# %% choice with probabilities that do not sum to one
rng.choice(["x", "y", "z"], p=[0.5, 0.3, 0.3])
# %% a birthday-problem simulation
rng = Generator(PCG64(365))
trials = rng.integers(0, 365, size=(20_000, 23))
sorted_days = np.sort(trials, axis=1)
has_dup = (np.diff(sorted_days, axis=1) == 0).any(axis=1)
exact = 1 - np.prod((365 - np.arange(23)) / 365)
print(f"simulated {has_dup.mean():.4f} vs exact {exact:.4f}")
# %% the legacy seeded API
np.random.seed(1)
legacy = np.random.randint(0, 100, size=5)
np.random.seed(1)
print(legacy, np.random.randint(0, 100, size=5), np.random.rand(2).round(6))
# %% a RandomState of its own
rs = np.random.RandomState(1)
print(rs.randint(0, 100, size=5), rs.rand(2).round(6))
# %% answer as plain Python
result = {"pi": round(float(pi_hat), 4), "p_dup": float(has_dup.mean()), "walk_end": int(walk[-1])}
print(result)
isinstance(result["walk_end"], int)
