# csv.DictWriter/DictReader round trip through a file, with missing keys, restval and extra columns.
import csv

fields = ["id", "city", "score"]
with open("scores.csv", "w", encoding="utf-8", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=fields, restval="n/a")
    writer.writeheader()
    writer.writerow({"id": 1, "city": "Paris", "score": 9.5})
    writer.writerows([{"id": 2, "city": "Z\u00fcrich"}, {"id": 3, "score": 7}])
    try:
        writer.writerow({"id": 4, "country": "x"})
    except ValueError as e:
        print(type(e).__name__, e)
with open("scores.csv", encoding="utf-8", newline="") as f:
    print(repr(f.read()))
with open("scores.csv", encoding="utf-8", newline="") as f:
    reader = csv.DictReader(f)
    print(reader.fieldnames)
    for row in reader:
        print(dict(row))
with open("ragged.csv", "w", encoding="utf-8", newline="") as f:
    f.write("a,b\n1,2,3\n4\n")
with open("ragged.csv", encoding="utf-8", newline="") as f:
    print([dict(r) for r in csv.DictReader(f, restkey="extra", restval="-")])
with open("ragged.csv", encoding="utf-8", newline="") as f:
    print([dict(r) for r in csv.DictReader(f, fieldnames=["x", "y"])])
