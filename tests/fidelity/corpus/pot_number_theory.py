# ProgramOfThought on number-theory puzzles: sieves, digit sums, bases, gcd/lcm, big integers, int() parsing mistakes.
# %% primes below 10,000 with a sieve
def sieve(limit: int) -> list[int]:
    is_prime = [True] * (limit + 1)
    is_prime[0] = is_prime[1] = False
    for i in range(2, int(limit ** 0.5) + 1):
        if is_prime[i]:
            is_prime[i * i :: i] = [False] * len(range(i * i, limit + 1, i))
    return [i for i, flag in enumerate(is_prime) if flag]

primes = sieve(10_000)
print(len(primes), primes[:10], primes[-3:], sum(primes))

# %% twin primes and the largest prime gap
twins = [(p, q) for p, q in zip(primes, primes[1:]) if q - p == 2]
gaps = [(q - p, p, q) for p, q in zip(primes, primes[1:])]
print(len(twins), twins[:5], twins[-1])
print(max(gaps))

# %% sum of digits of 2**1000 and of 100!
import math
n = 2 ** 1000
print(len(str(n)), sum(int(d) for d in str(n)))
f100 = math.factorial(100)
print(sum(map(int, str(f100))), str(f100)[:20], len(str(f100)), str(f100).count("0"), len(str(f100)) - len(str(f100).rstrip("0")))

# %% base conversions
x = 2024
print(bin(x), oct(x), hex(x), format(x, "b"), format(x, "#x"), format(x, "08b"), f"{x:o}", f"{x:X}", f"{x:_b}")
print(int("11111101000", 2), int("0x7e8", 16), int("7e8", 16), int("3720", 8), int("zz", 36), int("0b101", 0))

def to_base(n: int, base: int) -> str:
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if n == 0:
        return "0"
    out = []
    sign = "-" if n < 0 else ""
    n = abs(n)
    while n:
        n, r = divmod(n, base)
        out.append(digits[r])
    return sign + "".join(reversed(out))

print([to_base(x, b) for b in (2, 3, 7, 12, 16, 36)], to_base(-255, 16), to_base(0, 5))
assert all(int(to_base(x, b), b) == x for b in range(2, 37))

# %% parse numbers read from a puzzle text
tokens = "12 7 3.5 40".split()
nums = [int(t) for t in tokens]
nums

# %% fix: parse as float when needed
nums = [int(t) if t.lstrip("-").isdigit() else float(t) for t in tokens]
print(nums, sum(nums))
for bad in ["", " 42 ", "4_2", "٤٢", "1e3", "0x10", "+7", "-0"]:
    try:
        print(repr(bad), "->", int(bad))
    except ValueError as e:
        print(repr(bad), "-> ValueError:", e)

# %% gcd, lcm and the bus-schedule puzzle
from functools import reduce
periods = [12, 18, 30, 45]
print(math.gcd(*periods), math.lcm(*periods), reduce(math.gcd, periods), math.gcd(0, 0), math.lcm())
print(f"All buses meet again after {math.lcm(*periods)} minutes = {math.lcm(*periods) // 60}h {math.lcm(*periods) % 60}m")
print(pow(3, 200, 1000), pow(7, -1, 40), pow(2, 10), (-7) // 2, -7 % 3, divmod(-17, 5))

# %% which of the listed periods divide 360 (mistake: a zero slipped in)
candidates = [0, 1, 7, 8, 12, 15, 16, 24, 45]
[d for d in candidates if 360 % d == 0]

# %% fix
print([d for d in candidates if d and 360 % d == 0], [d for d in range(1, 361) if 360 % d == 0].__len__())

# %% perfect numbers, amicable pairs
def divisor_sum(n: int) -> int:
    total = 1
    for d in range(2, math.isqrt(n) + 1):
        if n % d == 0:
            total += d
            if d != n // d:
                total += n // d
    return total if n > 1 else 0

perfect = [n for n in range(2, 10_000) if divisor_sum(n) == n]
amicable = sorted({tuple(sorted((a, divisor_sum(a)))) for a in range(2, 3000) if (b := divisor_sum(a)) != a and divisor_sum(b) == a})
print(perfect, amicable)

# %% Collatz: longest chain under 10,000 with memoisation
from functools import lru_cache

@lru_cache(maxsize=None)
def collatz_len(n: int) -> int:
    if n == 1:
        return 1
    return 1 + collatz_len(n // 2 if n % 2 == 0 else 3 * n + 1)

best = max(range(1, 10_000), key=collatz_len)
print(best, collatz_len(best), collatz_len.cache_info().currsize > 10_000)

# %% isqrt, perfect squares, and a huge integer
squares = [n for n in range(1, 200) if math.isqrt(n) ** 2 == n]
print(squares)
huge = 3 ** 500 + 1
print(huge.bit_length(), math.isqrt(huge) ** 2 <= huge, str(huge)[-10:], huge % 97, len(f"{huge:,}"))
print(int.from_bytes(b"\x01\x00", "big"), (1025).to_bytes(2, "little"), (255).bit_count(), (-5).bit_length())
print(math.comb(60, 30), 10 ** 30 // 7, -(10 ** 30) // 7, 10 ** 30 / 7)

# %% digit puzzle: numbers equal to the sum of the fifth powers of their digits
hits = [n for n in range(10, 6 * 9 ** 5 + 1) if n == sum(int(d) ** 5 for d in str(n))]
print(hits, sum(hits))

# %% digits of 2000! (mistake: the int-to-str limit)
f2000 = math.factorial(2000)
digits_2000 = str(f2000)

# %% lift the limit and retry
import sys
sys.set_int_max_str_digits(0)
digits_2000 = str(f2000)
print(len(digits_2000), sum(map(int, digits_2000)), digits_2000[:12], len(digits_2000) - len(digits_2000.rstrip("0")))

# %% confirm the limit setting
# differs: sys.get_int_max_str_digits() returns 100000 after set_int_max_str_digits(0) (CPython: 0)
print("int max str digits:", sys.get_int_max_str_digits())

# %% submit
SUBMIT(primes_below_10k=len(primes), digit_sum_2_1000=sum(int(d) for d in str(2 ** 1000)), perfect=perfect, fifth_powers=sum(hits))
