# ProgramOfThought solving counting and optimisation puzzles with dynamic programming and lru_cache recursion.
# %% ways to climb 30 stairs taking 1, 2 or 3 steps
from functools import lru_cache, cache

@lru_cache(maxsize=None)
def ways(n: int) -> int:
    if n < 0:
        return 0
    if n == 0:
        return 1
    return ways(n - 1) + ways(n - 2) + ways(n - 3)

print([ways(i) for i in range(10)], ways(30))
print(ways.cache_info())

# %% coin change: number of ways and fewest coins
coins = [1, 2, 5, 10, 20, 50, 100, 200]
target = 200
count = [1] + [0] * target
for c in coins:
    for amount in range(c, target + 1):
        count[amount] += count[amount - c]
print("ways to make 200p:", count[target])

INF = float("inf")
fewest = [0] + [INF] * 289
for amount in range(1, 290):
    for c in (1, 7, 10, 25):
        if c <= amount and fewest[amount - c] + 1 < fewest[amount]:
            fewest[amount] = fewest[amount - c] + 1
print(fewest[14], fewest[289], fewest[:16])

# %% build the answer string (mistake: concatenating a number)
print("fewest coins for 289: " + fewest[289])

# %% fix
print(f"fewest coins for 289: {int(fewest[289])}")
print("fewest coins for 289: " + str(int(fewest[289])))

# %% 0/1 knapsack with item reconstruction
items = [("map", 9, 150), ("compass", 13, 35), ("water", 153, 200), ("sandwich", 50, 160), ("glucose", 15, 60),
         ("tin", 68, 45), ("banana", 27, 60), ("apple", 39, 40), ("cheese", 23, 30), ("beer", 52, 10),
         ("suntan cream", 11, 70), ("camera", 32, 30), ("t-shirt", 24, 15), ("trousers", 48, 10)]
capacity = 400
best = [[0] * (capacity + 1) for _ in range(len(items) + 1)]
for i, (name, weight, value) in enumerate(items, start=1):
    for w in range(capacity + 1):
        best[i][w] = best[i - 1][w]
        if weight <= w:
            best[i][w] = max(best[i][w], best[i - 1][w - weight] + value)
chosen, w = [], capacity
for i in range(len(items), 0, -1):
    if best[i][w] != best[i - 1][w]:
        chosen.append(items[i - 1][0])
        w -= items[i - 1][1]
print(best[-1][-1], sorted(chosen), capacity - w)

# %% edit distance and longest common subsequence
def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]

@cache
def lcs(a: str, b: str) -> str:
    if not a or not b:
        return ""
    if a[0] == b[0]:
        return a[0] + lcs(a[1:], b[1:])
    return max(lcs(a[1:], b), lcs(a, b[1:]), key=len)

pairs = [("kitten", "sitting"), ("flaw", "lawn"), ("intention", "execution"), ("", "abc")]
for a, b in pairs:
    print(f"{a!r:>12} -> {b!r:<12} edit={edit_distance(a, b)} lcs={lcs(a, b)!r}")

# %% longest increasing subsequence with bisect
from bisect import bisect_left
seq = [3, 10, 2, 1, 20, 4, 6, 7, 15, 8, 9, 30, 5]
tails: list[int] = []
for x in seq:
    k = bisect_left(tails, x)
    if k == len(tails):
        tails.append(x)
    else:
        tails[k] = x
print(len(tails), tails)

# %% integer partitions p(n) and a grid path count
@lru_cache(maxsize=None)
def partitions(n: int, largest: int) -> int:
    if n == 0:
        return 1
    return sum(partitions(n - k, k) for k in range(1, min(n, largest) + 1))

print([partitions(n, n) for n in range(1, 16)], partitions(100, 100))
import math
grid = [[1] * 21 for _ in range(21)]
for r in range(1, 21):
    for c in range(1, 21):
        grid[r][c] = grid[r - 1][c] + grid[r][c - 1]
print(grid[20][20], math.comb(40, 20), grid[20][20] == math.comb(40, 20))

# %% maximum path sum in a triangle (bottom-up)
triangle_text = """75
95 64
17 47 82
18 35 87 10
20 04 82 47 65
19 01 23 75 03 34"""
tri = [[int(x) for x in line.split()] for line in triangle_text.splitlines()]
rows = [row[:] for row in tri]
for r in range(len(rows) - 2, -1, -1):
    for c in range(len(rows[r])):
        rows[r][c] += max(rows[r + 1][c], rows[r + 1][c + 1])
print(rows[0][0], tri[4])

# %% memoised recursion on a list argument (mistake: unhashable)
@lru_cache(maxsize=None)
def total_weight(bag: list) -> int:
    return sum(bag)

total_weight([1, 2, 3])

# %% fix with a tuple
@lru_cache(maxsize=None)
def total_weight(bag: tuple) -> int:
    return sum(bag)

print(total_weight((1, 2, 3)), total_weight(tuple([4, 5])), total_weight.cache_info().misses)
FINAL({"stairs_30": ways(30), "coin_ways_200": count[200], "knapsack": best[-1][-1], "lis": len(tails), "p100": partitions(100, 100)})
