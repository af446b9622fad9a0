# json.dump/json.load through files: formatting options, unicode, and decode errors with positions.
import json
import os

data = {"name": "caf\u00e9", "values": [1, 2.5, None, True], "nested": {"b": [], "a": {}}, "n": -0}
with open("data.json", "w", encoding="utf-8") as f:
    print(json.dump(data, f))
with open("data.json", encoding="utf-8") as f:
    print(f.read())
with open("data.json", encoding="utf-8") as f:
    print(json.load(f) == data)
with open("pretty.json", "w", encoding="utf-8") as f:
    json.dump(data, f, indent=2, sort_keys=True, ensure_ascii=False)
with open("pretty.json", encoding="utf-8") as f:
    print(f.read())
print(os.path.getsize("data.json"), os.path.getsize("pretty.json"))
with open("pretty.json", "rb") as f:
    print(json.load(f)["name"] == "caf\u00e9")
with open("bad.json", "w", encoding="utf-8") as f:
    f.write('{"a": 1,\n "b" [1, 2]\n}')
try:
    with open("bad.json", encoding="utf-8") as f:
        json.load(f)
except json.JSONDecodeError as e:
    print(type(e).__name__, isinstance(e, ValueError), e.msg, e.lineno, e.colno, e.pos)
    print(e)
with open("lines.jsonl", "w", encoding="utf-8") as f:
    for i in range(3):
        f.write(json.dumps({"i": i, "sq": i * i}) + "\n")
with open("lines.jsonl", encoding="utf-8") as f:
    print([json.loads(line)["sq"] for line in f])
