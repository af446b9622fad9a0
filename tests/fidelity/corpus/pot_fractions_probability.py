# ProgramOfThought solving probability puzzles by exact enumeration with Fraction and itertools.
# %% two dice: probability the sum is 7 or 11
from fractions import Fraction
from itertools import product, combinations, permutations
from collections import Counter
outcomes = list(product(range(1, 7), repeat=2))
print(len(outcomes), outcomes[:5])
sums = Counter(a + b for a, b in outcomes)
print(sorted(sums.items()))
p = Fraction(sums[7] + sums[11], len(outcomes))
print(p, float(p), f"{float(p):.4f}", f"{float(p):.2%}")

# %% at least one six in four rolls vs a double six in 24 rolls (de Méré)
p_one_six = 1 - Fraction(5, 6) ** 4
p_double_six = 1 - Fraction(35, 36) ** 24
print(p_one_six, float(p_one_six))
print(float(p_double_six), p_double_six.numerator.bit_length(), p_double_six.denominator)
print("first is better" if p_one_six > p_double_six else "second is better")

# %% poker: probability of a flush (incl. straight flushes) by counting
from math import comb, perm, factorial
flush = 4 * comb(13, 5)
total_hands = comb(52, 5)
print(total_hands, flush, Fraction(flush, total_hands), f"{flush / total_hands:.6f}")
full_house = 13 * comb(4, 3) * 12 * comb(4, 2)
print("full house:", Fraction(full_house, total_hands), f"1 in {total_hands / full_house:.1f}")
print(perm(10, 3), perm(5), factorial(20), comb(100, 50))

# %% birthday problem: smallest group with p > 1/2
def p_shared(n: int, days: int = 365) -> Fraction:
    p_distinct = Fraction(1)
    for k in range(n):
        p_distinct *= Fraction(days - k, days)
    return 1 - p_distinct

n = 1
while p_shared(n) <= Fraction(1, 2):
    n += 1
birthday_n = n
print(n, float(p_shared(n)), float(p_shared(n - 1)))
print({k: round(float(p_shared(k)), 4) for k in (10, 20, 30, 40, 50, 57)})

# %% drawing socks: 3 red, 4 blue, 5 green; probability two draws match
socks = ["R"] * 3 + ["B"] * 4 + ["G"] * 5
pairs = list(combinations(range(len(socks)), 2))
match = sum(1 for i, j in pairs if socks[i] == socks[j])
print(len(pairs), match, Fraction(match, len(pairs)))
by_colour = Counter(socks)
check = sum(Fraction(comb(c, 2), comb(len(socks), 2)) for c in by_colour.values())
print(check, check == Fraction(match, len(pairs)))

# %% a fraction built from a float string (mistake)
odds = "0.35"
Fraction(odds), Fraction(0.35), Fraction(0.35).limit_denominator(100)

# %% Fraction from a bad string raises
Fraction("1/0")

# %% parse fractions safely
raw = ["3/4", "  2/6 ", "-5/10", "7", "1.25", "x/3", "3/0"]
parsed: list[Fraction] = []
for token in raw:
    try:
        parsed.append(Fraction(token))
    except (ValueError, ZeroDivisionError) as exc:
        print(f"skip {token!r}: {type(exc).__name__}: {exc}")
print(parsed, sum(parsed), max(parsed), sorted(parsed))
print([str(f) for f in parsed], [f.as_integer_ratio() for f in parsed])

# %% derangements: probability nobody gets their own hat (n = 6)
n = 6
people = range(n)
derangements = sum(1 for p in permutations(people) if all(p[i] != i for i in people))
prob = Fraction(derangements, factorial(n))
import math
print(derangements, prob, float(prob), 1 / math.e, abs(float(prob) - 1 / math.e) < 1e-3)

# %% expected number of rolls to see every face (coupon collector)
E = sum(Fraction(6, k) for k in range(1, 7))
print(E, float(E), round(E, 3), round(E), E.limit_denominator(10), format(E, ".5f"), f"{E:>10}|")
print(Fraction(1, 3) + Fraction(1, 6), Fraction(3, 4) * 2, Fraction(7, 2) // 1, Fraction(-7, 2) % 3, abs(Fraction(-1, 3)))
print(Fraction(1, 3) == 1 / 3, Fraction(1, 2) == 0.5, Fraction(5, 10) is not None and hash(Fraction(1, 2)) == hash(0.5))

# %% final
FINAL(f"P(7 or 11) = {p}; birthday n = {birthday_n}; derangements(6) = {derangements} ({float(prob):.4f}); E[rolls] = {E}")
