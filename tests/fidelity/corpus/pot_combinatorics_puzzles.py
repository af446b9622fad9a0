# ProgramOfThought brute-forcing logic and arrangement puzzles with itertools.
# %% cryptarithm: TO + GO = OUT
from itertools import permutations, combinations, product, accumulate, groupby, combinations_with_replacement, islice, chain
letters = sorted(set("TOGOOUT"))
print(letters)
solutions = []
for digits in permutations(range(10), len(letters)):
    env = dict(zip(letters, digits))
    if env["T"] == 0 or env["G"] == 0 or env["O"] == 0:
        continue
    word = lambda w: int("".join(str(env[c]) for c in w))
    if word("TO") + word("GO") == word("OUT"):
        solutions.append({k: env[k] for k in letters})
print(len(solutions), solutions[:3])

# %% handshakes, committees and seating
people = ["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"]
handshakes = list(combinations(people, 2))
print(len(handshakes), handshakes[:4])
committees = [c for c in combinations(people, 3) if not ("Ana" in c and "Ben" in c)]
print(len(committees), committees[-2:])
import math
print("circular seatings:", math.factorial(len(people) - 1), "with Ana next to Ben:", 2 * math.factorial(len(people) - 2))
# fix Ana at the head of the table; Ben is next to her at either end of the remaining order
count = sum(1 for p in permutations(people[1:]) if p.index("Ben") in (0, 4))
print(count, count == 2 * math.factorial(4))

# %% 3x3 magic squares
squares = []
for perm in permutations(range(1, 10)):
    rows = [perm[0:3], perm[3:6], perm[6:9]]
    if any(sum(r) != 15 for r in rows):
        continue
    cols = list(zip(*rows))
    if all(sum(c) == 15 for c in cols) and perm[0] + perm[4] + perm[8] == 15 and perm[2] + perm[4] + perm[6] == 15:
        squares.append(rows)
print(len(squares))
for r in squares[0]:
    print(*r)

# %% dice totals with product and groupby
rolls = sorted(product(range(1, 7), repeat=3), key=sum)
dist = {total: len(list(group)) for total, group in groupby(rolls, key=sum)}
print(dist)
print(max(dist, key=dist.get), [t for t, n in dist.items() if n == max(dist.values())])

# %% groupby without sorting first (mistake: split groups)
words = ["apple", "avocado", "banana", "apricot", "blueberry", "cherry", "cranberry"]
naive = {k: list(g) for k, g in groupby(words, key=lambda w: w[0])}
print(naive)
fixed = {k: list(g) for k, g in groupby(sorted(words), key=lambda w: w[0])}
print(fixed)

# %% accumulate: running balance and running max
deposits = [100, -30, 250, -400, 80, -20, 300]
print(list(accumulate(deposits)), list(accumulate(deposits, max)), list(accumulate(deposits, initial=1000)))
import operator
print(list(accumulate(range(1, 8), operator.mul)), list(islice(accumulate(chain([1], [1] * 20), lambda a, _: a * 2), 6)))
print(list(combinations_with_replacement("ABC", 2)), len(list(product("01", repeat=10))))

# %% knights and knaves by brute force
# A says "B is a knave"; B says "A and C are the same kind"; C says nothing useful: "I am a knight".
def consistent(a: bool, b: bool, c: bool) -> bool:
    says_a = not b
    says_b = a == c
    return (says_a == a) and (says_b == b)

answers = [dict(zip("ABC", combo)) for combo in product([True, False], repeat=3) if consistent(*combo)]
for ans in answers:
    print({k: "knight" if v else "knave" for k, v in ans.items()})

# %% the next permutation index lookup (mistake: tuple vs list)
perms = list(permutations("ABCD"))
perms.index(["B", "A", "D", "C"])

# %% fix: compare tuples, lexicographic rank
rank = perms.index(tuple("BADC"))
print(rank, perms[rank], perms[0], perms[-1], len(perms))
millionth = next(islice(permutations("0123456789"), 999_999, None))
print("".join(millionth))

# %% subset sum: which coins make 50
coins = [3, 34, 4, 12, 5, 2, 27, 9]
hits = [c for r in range(1, len(coins) + 1) for c in combinations(coins, r) if sum(c) == 50]
print(len(hits), hits[:5], min(hits, key=len))
SUBMIT(cryptarithm=len(solutions), magic_squares=len(squares), millionth="".join(millionth), subset_sums=len(hits))
