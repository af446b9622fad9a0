# ProgramOfThought on geometry and physics problems: trig, sqrt/hypot, logs, exponentials, scientific formatting.
# %% ladder against a wall
import math
ladder, base = 13.0, 5.0
height = math.sqrt(ladder ** 2 - base ** 2)
angle = math.degrees(math.atan2(height, base))
print(height, f"{angle:.2f}°", math.hypot(5, 12), math.isqrt(169), math.dist((0, 0), (5, 12)))

# %% triangle from three sides: Heron and law of cosines
a, b, c = 7, 8, 9
s = (a + b + c) / 2
area = math.sqrt(s * (s - a) * (s - b) * (s - c))
C = math.degrees(math.acos((a * a + b * b - c * c) / (2 * a * b)))
print(f"s={s} area={area:.4f} C={C:.4f}", round(area, 6), f"{area:.3e}")

# %% an impossible triangle (mistake: sides 1, 2, 10)
a, b, c = 1, 2, 10
cos_c = (a * a + b * b - c * c) / (2 * a * b)
print(cos_c)
math.degrees(math.acos(cos_c))

# %% check the triangle inequality first
def triangle_angles(a: float, b: float, c: float) -> tuple[float, float, float] | None:
    if not (a + b > c and a + c > b and b + c > a):
        return None
    A = math.degrees(math.acos((b * b + c * c - a * a) / (2 * b * c)))
    B = math.degrees(math.acos((a * a + c * c - b * b) / (2 * a * c)))
    return round(A, 3), round(B, 3), round(180 - A - B, 3)

for sides in [(3, 4, 5), (1, 2, 10), (1, 1, 1), (5, 5, 8), (2, 2, 4)]:
    print(sides, triangle_angles(*sides))

# %% circles, spheres and pi formatting
for r in (1, 2.5, 10):
    print(f"r={r:<4} C={2 * math.pi * r:>8.3f} A={math.pi * r ** 2:>9.3f} V={4 / 3 * math.pi * r ** 3:>10.2f}")
print(math.pi, math.tau, math.e, f"{math.pi:.10f}", f"{math.pi:e}", round(math.pi, 4), math.inf > 1e308)

# %% projectile: range and max height
g = 9.81
v0, theta = 25.0, math.radians(35)
rng = v0 ** 2 * math.sin(2 * theta) / g
h = (v0 * math.sin(theta)) ** 2 / (2 * g)
t_flight = 2 * v0 * math.sin(theta) / g
print(f"range={rng:.2f} m, max height={h:.2f} m, flight={t_flight:.3f} s")
best = max(range(1, 90), key=lambda deg: math.sin(math.radians(2 * deg)))
print(best, math.sin(math.radians(30)), math.cos(math.radians(60)), math.tan(math.pi / 4))

# %% radioactive decay and compound growth with logs
half_life = 5730
remaining = 0.23
age = half_life * math.log(remaining) / math.log(0.5)
print(f"{age:,.0f} years", math.log2(1024), math.log10(0.001), math.log(8, 2), math.log1p(1e-10), math.expm1(1e-10))
doubling = math.log(2) / math.log(1.07)
print(f"doubling at 7%: {doubling:.2f} years (rule of 72: {72 / 7:.2f})", math.ceil(doubling), math.floor(doubling))

# %% bacteria growth overflows
growth = [math.exp(0.5 * hour) for hour in (10, 100, 1000, 2000)]
growth

# %% fix: work in logs and report in scientific notation
for hour in (10, 100, 1000, 2000):
    log10_count = 0.5 * hour / math.log(10)
    mantissa = 10 ** (log10_count % 1)
    print(f"hour {hour:>4}: ~{mantissa:.3f}e+{int(log10_count)}  ({log10_count:.2f} decimal digits)")
print(f"{math.exp(700):.4e}", f"{2 ** 1000:.3e}", float(10 ** 308), len(str(10 ** 400)))

# %% big int to float overflow
float(10 ** 400)

# %% floor, ceil, trunc and rounding of measurements
vals = [2.5, -2.5, 3.7, -3.7, 0.49999999999999994, 1e-300]
for v in vals:
    print(f"{v!r:>22} floor={math.floor(v):>3} ceil={math.ceil(v):>3} trunc={math.trunc(v):>3} round={round(v):>3}")
print(math.copysign(3, -0.0), math.fabs(-4), math.gcd(48, 180), math.degrees(math.pi), math.radians(180) == math.pi)
print(math.sumprod([1, 2, 3], [4, 5, 6]), math.cbrt(27), math.exp2(10), math.erf(1))

# %% polygon area with the shoelace formula
poly = [(0, 0), (4, 0), (4, 3), (2, 5), (0, 3)]
twice = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]))
perimeter = sum(math.dist(p, q) for p, q in zip(poly, poly[1:] + poly[:1]))
print(abs(twice) / 2, f"{perimeter:.4f}", math.fsum(math.dist(p, q) for p, q in zip(poly, poly[1:] + poly[:1])))
SUBMIT(ladder_height=height, heron_area=round(area, 4), carbon_age=round(age), polygon_area=abs(twice) / 2)
