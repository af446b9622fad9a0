# zoneinfo over the tzdata the wheel depends on, and sqlite3 in memory, as CPython runs them.
import sqlite3
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

paris = ZoneInfo("Europe/Paris")
for month in (1, 7):
    moment = datetime(2024, month, 15, 12, 0, tzinfo=paris)
    print(moment.isoformat(), moment.tzname(), moment.utcoffset(), moment.dst())
ny = datetime(2024, 3, 10, 1, 30, tzinfo=ZoneInfo("America/New_York"))
print(ny + timedelta(hours=1), (ny + timedelta(hours=1)).tzname())
print(datetime(2024, 11, 3, 1, 30, fold=1, tzinfo=ZoneInfo("America/New_York")).tzname())
print(datetime(2024, 6, 1, tzinfo=timezone.utc).astimezone(ZoneInfo("Asia/Kolkata")))
print(ZoneInfo("UTC").key, str(ZoneInfo("Australia/Sydney")))
try:
    ZoneInfo("Mars/Olympus_Mons")
except ZoneInfoNotFoundError as error:
    print(type(error).__name__, error)
try:
    ZoneInfo("../etc/passwd")
except ValueError as error:
    print(type(error).__name__, error)

db = sqlite3.connect(":memory:")
db.execute("create table sales (region text, amount real, day text)")
db.executemany("insert into sales values (?, ?, ?)", [("north", 10.5, "2024-01-02"), ("south", 7.25, "2024-01-03"),
                                                         ("north", 3.0, "2024-02-01"), ("east", None, "2024-02-03")])
print(db.execute("select region, count(*), round(sum(amount), 2) from sales group by region order by region").fetchall())
print(db.execute("select strftime('%m', day) as m, total(amount) from sales group by m").fetchall())
db.row_factory = sqlite3.Row
row = db.execute("select * from sales where amount > ? order by amount desc limit 1", (5,)).fetchone()
print(dict(row), row.keys())
print(db.execute("select json_object('a', 1, 'b', json_array(1, 2))").fetchone()[0])
try:
    db.execute("select * from missing")
except sqlite3.OperationalError as error:
    print(type(error).__name__, error)
try:
    db.execute("insert into sales values (1, 2)")
except sqlite3.OperationalError as error:
    print(type(error).__name__, error)
with db:
    db.execute("create table kv (k text primary key, v)")
    db.execute("insert into kv values ('a', 1)")
try:
    db.execute("insert into kv values ('a', 2)")
except sqlite3.IntegrityError as error:
    print(type(error).__name__, error)
print(list(db.iterdump())[:3])
