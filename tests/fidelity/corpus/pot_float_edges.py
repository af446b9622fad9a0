# ProgramOfThought checking float behaviour before trusting a computed answer: repr, rounding, inf/nan, overflow.
# %% the classic
a = 0.1 + 0.2
print(a, a == 0.3, repr(a), f"{a:.17f}", f"{a:.2f}")
import math
print(math.isclose(a, 0.3), abs(a - 0.3) < 1e-9, a - 0.3)

# %% round half to even
values = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 2.675, 1.005, 0.125, 0.375]
for v in values:
    print(f"{v!r:>6} -> round={round(v)!r:>3} round2={round(v, 2)!r:<6} fmt={v:.2f} int={int(v)}")

# %% big magnitudes lose units
big = 1e16
print(big + 1 == big, big + 2, int(big) + 1, 2**53 + 1.0, float(2**53 + 1))
print(1e16, 1e15, 123456789012345678.0, 1e22, 1e23, 1.5e-7, 0.0001, 0.00001)
print(repr(1/3), str(2/3), 100.0, 1e100, -0.0, 5e-324, 1.7976931348623157e308)

# %% sums that drift
xs = [0.1] * 10
print(sum(xs), math.fsum(xs), sum(xs) == 1.0, math.fsum(xs) == 1.0)
ys = [1e100, 1.0, -1e100]
print(sum(ys), math.fsum(ys))
print(math.prod([0.1, 0.2, 0.3]), math.prod(range(1, 11)), math.prod([]))

# %% inf and nan
inf = float("inf")
nan = float("nan")
print(inf, -inf, inf + 1, inf - inf, inf * 0, 1 / inf)
print(nan == nan, nan != nan, nan < 1, nan > 1, math.isnan(nan), math.isinf(-inf))
print(max(3, nan), max(nan, 3), min([inf, 2, -inf]), sorted([3.0, 1.0, 2.0]))
print(float("-inf") < -1e308, float("1e309"), float("  -12.5e-1  "), float("Infinity"), float("-NaN"))
print(repr(nan), str(inf), f"{inf:.2f}", f"{nan:10.3f}|", f"{-inf:e}")

# %% overflow while computing a softmax by hand
scores = [10.0, 250.0, 1000.0]
exps = [math.exp(s) for s in scores]
exps

# %% fix: subtract the max first
m = max(scores)
exps = [math.exp(s - m) for s in scores]
total = sum(exps)
probs = [e / total for e in exps]
print(probs)
print([f"{p:.3e}" for p in probs], [f"{p:.1%}" for p in probs])

# %% converting infinity to int
int(inf)

# %% and nan, and big powers
# differs: float ** overflow says 'math range error' not "(34, 'Numerical result out of range')"; sqrt(-1)/log(0) use 3.14 messages, not 'math domain error'
errors = []
for thunk in (lambda: int(nan), lambda: 10.0 ** 400, lambda: math.sqrt(-1), lambda: math.log(0), lambda: 2 ** 0.5):
    try:
        errors.append(repr(thunk()))
    except (ValueError, OverflowError) as e:
        errors.append(f"{type(e).__name__}: {e}")
for line in errors:
    print(line)

# %% exact views of floats
for x in (0.1, 0.5, 2.5, 1e-3):
    print(x, x.as_integer_ratio(), x.hex(), float.fromhex(x.hex()) == x, x.is_integer())
print((3.0).is_integer(), float.fromhex("0x1.8p1"), math.ulp(1.0), math.nextafter(1.0, 2.0))
print(divmod(7.5, 2), divmod(-7.5, 2), 7.5 // 2, -7.5 % 2, math.fmod(-7.5, 2), math.remainder(7.5, 2))

# %% formatting variety for the answer
v = 1234567.891
print(f"{v:e} {v:.3e} {v:E} {v:g} {v:.3g} {v:,} {v:_.1f} {v:+.0f} {v:%} {0.000012345:g} {1e-5:f}")
print(format(v, ",.2f"), format(0.5, ".0%"), format(12, "08.3f"), format(-3.14159, "^12.2f"), "{:>10.4}".format(math.pi))
print(round(v, -3), round(v, -2), round(1234.5), round(-2.5), round(7, -1), round(15, -1), round(25, -1))

# %% final answer
SUBMIT(answer=f"0.1+0.2={0.1 + 0.2!r}; fsum={math.fsum([0.1] * 10)}; round(2.675, 2)={round(2.675, 2)}")
