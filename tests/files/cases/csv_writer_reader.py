# csv.writer/csv.reader through files opened with newline='': quoting, embedded newlines, \r\n terminators.
import csv

rows = [["name", "note", "n"], ["alice", "plain", 1], ["bob", "has,comma", 2.5],
        ["carol", 'says "hi"', -3], ["dave", "two\nlines", None], ["\u00e9mile", "", True]]
with open("data.csv", "w", encoding="utf-8", newline="") as f:
    writer = csv.writer(f)
    print(writer.writerow(rows[0]))
    writer.writerows(rows[1:])
with open("data.csv", "rb") as f:
    raw = f.read()
print(raw.count(b"\r\n"), raw.splitlines()[:3])
with open("data.csv", encoding="utf-8", newline="") as f:
    reader = csv.reader(f)
    for row in reader:
        print(reader.line_num, row)
with open("tabs.tsv", "w", encoding="utf-8", newline="") as f:
    writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerows([["a", "b"], [1, "x\ty"]])
with open("tabs.tsv", encoding="utf-8") as f:
    print(repr(f.read()))
with open("tabs.tsv", encoding="utf-8", newline="") as f:
    print(list(csv.reader(f, delimiter="\t")))
with open("data.csv", encoding="utf-8") as f:
    print(sum(1 for _ in csv.reader(f)))
