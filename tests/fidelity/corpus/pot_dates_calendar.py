# ProgramOfThought on calendar word problems: days between dates, weekdays, adding months by hand, leap years.
# %% days between two dates
from datetime import date, datetime, timedelta
import calendar
start = date(2023, 11, 14)
end = date(2024, 3, 1)
delta = end - start
print(delta, delta.days, repr(delta), delta.days // 7, "weeks and", delta.days % 7, "days")
print(start.isoformat(), end.strftime("%A, %B %d, %Y"), end.strftime("%a %d %b %y"), start.strftime("%j %U %W"))

# %% what weekday was a given date
for d in [date(1969, 7, 20), date(2000, 1, 1), date(2024, 2, 29), date(1, 1, 1)]:
    print(d, calendar.day_name[d.weekday()], d.isoweekday(), d.strftime("%A"), d.isocalendar(), d.toordinal())

# %% add months by hand (clamping the day)
def add_months(d: date, months: int) -> date:
    month_index = d.month - 1 + months
    year = d.year + month_index // 12
    month = month_index % 12 + 1
    day = min(d.day, calendar.monthrange(year, month)[1])
    return date(year, month, day)

base = date(2024, 1, 31)
print([add_months(base, k).isoformat() for k in range(0, 13)])
print(add_months(date(2023, 3, 31), -1), add_months(date(2020, 2, 29), 12), add_months(date(2020, 2, 29), 48))

# %% naive month arithmetic (mistake)
base.replace(month=base.month + 1)

# %% first day of next month (mistake: December rolls over to month 13)
invoice_date = date(2024, 12, 18)
due = date(invoice_date.year, invoice_date.month + 1, 1)

# %% fix: carry into the year
y2, m2 = divmod(invoice_date.month, 12)
due = date(invoice_date.year + y2, m2 + 1, 1)
print(due, (due - invoice_date).days, due.strftime("%d/%m/%Y"))

# %% leap years and month lengths
leaps = [y for y in range(1896, 2025) if calendar.isleap(y)]
print(len(leaps), leaps[:3], 1900 in leaps, 2000 in leaps, calendar.leapdays(1900, 2100))
print([calendar.monthrange(2024, m) for m in (1, 2, 3)], calendar.monthrange(2023, 2))
print(list(calendar.month_abbr)[1:4], calendar.month_name[12], list(calendar.day_abbr))

# %% Friday the 13ths in 2026
fridays = [date(2026, m, 13) for m in range(1, 13) if date(2026, m, 13).weekday() == calendar.FRIDAY]
print([d.strftime("%b %d") for d in fridays], calendar.FRIDAY)
print(calendar.month(2026, 2))

# %% business days between two dates (no holidays)
def business_days(a: date, b: date) -> int:
    days = 0
    d = a
    while d < b:
        if d.weekday() < 5:
            days += 1
        d += timedelta(days=1)
    return days

print(business_days(date(2024, 3, 1), date(2024, 4, 1)), business_days(date(2024, 12, 23), date(2025, 1, 6)))
print(sum(1 for m in range(1, 13) for day in range(1, calendar.monthrange(2024, m)[1] + 1) if date(2024, m, day).weekday() == 6))

# %% timedelta arithmetic and datetime parsing
t0 = datetime.strptime("2024-03-10 08:45", "%Y-%m-%d %H:%M")
shift = timedelta(hours=9, minutes=30)
t1 = t0 + shift
print(t0, t1, t1.time(), t1 - t0, (t1 - t0).total_seconds(), shift * 3, shift / 2, shift // timedelta(minutes=45))
print(timedelta(days=-1, seconds=30), timedelta(seconds=-5), abs(timedelta(hours=-3)), timedelta(weeks=2, days=3, hours=25))
print(datetime(2024, 1, 1) + timedelta(days=365), (datetime(2024, 12, 31, 23, 59) - datetime(2024, 1, 1)).days)

# %% a bad date string
datetime.strptime("2024-02-30", "%Y-%m-%d")

# %% a date that does not exist
date(2023, 2, 29)

# %% age in years, months and days
def age(born: date, on: date) -> tuple[int, int, int]:
    years = on.year - born.year - ((on.month, on.day) < (born.month, born.day))
    anniversary = add_months(born, 12 * years)
    months = 0
    while add_months(anniversary, months + 1) <= on:
        months += 1
    days = (on - add_months(anniversary, months)).days
    return years, months, days

y, m, d = age(date(1990, 8, 17), date(2024, 3, 5))
print(f"{y} years, {m} months, {d} days")
print(age(date(2000, 2, 29), date(2024, 2, 28)), age(date(2000, 2, 29), date(2024, 2, 29)))

# %% day of the year and week numbers
for s in ["2024-01-01", "2024-12-30", "2021-01-03", "2026-06-15"]:
    day = date.fromisoformat(s)
    print(s, day.timetuple().tm_yday, day.isocalendar().week, day.isocalendar()[0], day.strftime("%G-W%V-%u"))
print(date.fromordinal(739000), date.min, date.max, date(2024, 5, 17) < date(2024, 6, 1), max(date(2020, 1, 1), date(2019, 12, 31)))

# %% answer
SUBMIT(answer=f"{delta.days} days; {len(fridays)} Friday the 13ths in 2026; age {y}y {m}m {d}d")
