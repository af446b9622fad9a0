# ProgramOfThought working through a batch of grade-school word problems, one computation per problem.
# variables: problems = [{"id": 1, "kind": "trains", "text": "Two trains leave stations 450 km apart at 9:00, heading toward each other at 80 km/h and 100 km/h. When do they meet?"}, {"id": 2, "kind": "work", "text": "Pipe A fills a tank in 6 hours, pipe B in 4 hours, and a drain empties it in 12 hours. How long to fill it with all open?"}, {"id": 3, "kind": "mixture", "text": "How many litres of 30% acid must be added to 20 litres of 70% acid to get 45% acid?"}, {"id": 4, "kind": "ages", "text": "A mother is 4 times as old as her son. In 20 years she will be twice as old. How old is the son?"}, {"id": 5, "kind": "percent", "text": "A price rises 25% then falls 20%. What is the net change?"}, {"id": 6, "kind": "clock", "text": "What is the angle between the hands of a clock at 3:40?"}, {"id": 7, "kind": "speed", "text": "A cyclist rides 30 km at 15 km/h and returns at 10 km/h. What is the average speed?"}, {"id": 8, "kind": "units", "text": "How many seconds are in 3 weeks, 2 days and 5 hours?"}]
# %% look at the problems
print(len(problems))
for p in problems:
    print(f"#{p['id']} [{p['kind']}] {p['text'][:70]}{'...' if len(p['text']) > 70 else ''}")

# %% extract the numbers in each problem
import re
from fractions import Fraction
numbers = {p["id"]: [float(x) if "." in x else int(x) for x in re.findall(r"\d+(?:\.\d+)?", p["text"])] for p in problems}
for pid, nums in numbers.items():
    print(pid, nums)

# %% problem 1: trains
distance, v1, v2 = 450, 80, 100
hours = Fraction(distance, v1 + v2)
minutes = hours * 60
meet_h, meet_m = divmod(int(minutes), 60)
print(hours, float(hours), minutes, f"They meet at {9 + meet_h}:{meet_m:02d}")
answers: dict[int, str] = {1: f"{9 + meet_h}:{meet_m:02d}"}

# %% problem 2: work rates
rate = Fraction(1, 6) + Fraction(1, 4) - Fraction(1, 12)
t = 1 / rate
print(rate, t, float(t), f"{int(t)} h {int((t - int(t)) * 60)} min")
answers[2] = f"{t} hours"

# %% problem 3: mixture (solve 0.30x + 0.70*20 = 0.45(x + 20))
x = (Fraction(45, 100) * 20 - Fraction(70, 100) * 20) / (Fraction(30, 100) - Fraction(45, 100))
print(x, float(x))
check = (Fraction(30, 100) * x + Fraction(70, 100) * 20) / (x + 20)
print(check, f"{float(check):.0%}")
answers[3] = f"{x} litres"

# %% problem 4: ages by search
son = next(s for s in range(1, 100) if 4 * s + 20 == 2 * (s + 20))
print(son, 4 * son)
answers[4] = str(son)

# %% problem 5: percent change, and with floats
factor = Fraction(125, 100) * Fraction(80, 100)
print(factor, 1.25 * 0.8, 1.25 * 0.8 == 1.0, 1.1 * 1.1, f"{1.1 * 1.1 - 1:.2%}", f"{(1.15 * 0.85 - 1):+.4%}")
answers[5] = f"{float(factor - 1):.0%}"
print(answers[5])

# %% problem 6: clock angle
def clock_angle(h: int, m: int) -> float:
    angle = abs(30 * (h % 12) + 0.5 * m - 6 * m)
    return min(angle, 360 - angle)

print(clock_angle(3, 40), clock_angle(12, 0), clock_angle(9, 0), clock_angle(6, 30), clock_angle(11, 59))
answers[6] = f"{clock_angle(3, 40):g} degrees"

# %% problem 7: average speed over legs (mistake: a leg with zero time)
legs = [(30, 15), (30, 10), (0, 0)]
times = [d // v for d, v in legs]
print(times)

# %% fix: ignore empty legs and use exact fractions
legs = [(d, v) for d, v in legs if v]
total_d = sum(d for d, _ in legs)
total_t = sum(Fraction(d, v) for d, v in legs)
avg = total_d / total_t
print(total_d, total_t, avg, float(avg), "naive mean:", sum(v for _, v in legs) / len(legs))
answers[7] = f"{float(avg):.1f} km/h"

# %% problem 8: units with timedelta
from datetime import timedelta
span = timedelta(weeks=3, days=2, hours=5)
print(span, span.total_seconds(), int(span.total_seconds()), f"{int(span.total_seconds()):,}", f"{span.total_seconds():.3e}")
answers[8] = f"{int(span.total_seconds()):,} seconds"

# %% check every problem has an answer (mistake: key type)
missing = [p["id"] for p in problems if str(p["id"]) not in answers]
print("missing:", missing)
answers["1"]

# %% final table
for p in problems:
    print(f"{p['id']:>2}. {p['kind']:<8} -> {answers[p['id']]}")
SUBMIT(answers={str(k): v for k, v in sorted(answers.items())})
