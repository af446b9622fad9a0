# An RLM session over a 200 KB repository dump: files by header, functions by regex, TODO owners, a sub-LLM review per package.
# variables: context = rlm_code_dump(300)
# variables: query = "Which package has the most TODO/FIXME debt, who owns it, and which functions are longest?"
# %% peek
print(len(context))
print(context[:400])

# %% split into files
import re
parts = re.split(r"^=== (.+?) ===$", context, flags=re.M)
print(len(parts), repr(parts[0]))
files = dict(zip(parts[1::2], parts[2::2]))
print(len(files), list(files)[:3])

# %% the same path twice? dict() would have merged them
paths = parts[1::2]
print(len(paths), len(set(paths)))

# %% functions and their lengths
FUNC = re.compile(r"^def (\w+)\((.*?)\):\n((?:    .*\n?)+)", re.M)
funcs = []
for path, src in files.items():
    for m in FUNC.finditer(src):
        body = m.group(3).rstrip("\n").splitlines()
        funcs.append({"path": path, "name": m[1], "args": [a.strip() for a in m[2].split(",") if a.strip()], "lines": len(body)})
print(len(funcs))
longest = sorted(funcs, key=lambda f: (-f["lines"], f["path"], f["name"]))[:5]
for f in longest:
    print(f"{f['lines']:>3} {f['path']}::{f['name']}({', '.join(f['args'])})")

# %% signatures for the longest ones
for f in longest[:2]:
    print(f["name"] + "(" + f["args"].join(", ") + ")")

# %% join is a str method
for f in longest[:2]:
    print(f["name"] + "(" + ", ".join(f["args"]) + ")", f["lines"], "lines")
print(sum(f["lines"] for f in funcs) / len(funcs), "lines per function on average")

# %% TODOs with owners, FIXMEs without
from collections import Counter, defaultdict
todo = re.compile(r"#\s*TODO\((\w+)\):\s*(.+)")
debt = defaultdict(Counter)
owners = Counter()
for path, src in files.items():
    package = path.split("/")[1]
    for line in src.splitlines():
        if m := todo.search(line):
            debt[package]["TODO"] += 1
            owners[m[1]] += 1
        elif "FIXME" in line:
            debt[package]["FIXME"] += 1
for package in sorted(debt):
    print(package, dict(debt[package]), "total", debt[package].total())
print(owners.most_common())

# %% per-package owner split
per_pkg_owner = defaultdict(Counter)
for path, src in files.items():
    for m in todo.finditer(src):
        per_pkg_owner[path.split("/")[1]][m[1]] += 1
worst_pkg = max(debt, key=lambda p: (debt[p].total(), p))
print(worst_pkg, per_pkg_owner[worst_pkg].most_common())

# %% a review prompt per package (only the functions with debt, to keep prompts small)
reviews_in = {}
for path, src in files.items():
    pkg = path.split("/")[1]
    snippets = [m.group(0) for m in FUNC.finditer(src) if "TODO" in m.group(0) or "FIXME" in m.group(0)]
    reviews_in.setdefault(pkg, []).extend(f"# {path}\n{s}" for s in snippets)
pkgs = sorted(reviews_in)
print({p: len(reviews_in[p]) for p in pkgs})
reviews = llm_query_batched([f"Review the tech debt in package {p}:\n\n" + "\n".join(reviews_in[p]) for p in pkgs])
for p, r in zip(pkgs, reviews):
    print(p, "|", r)

# %% classes defined across the repo
classes = Counter(re.findall(r"^class (\w+):", context, re.M))
print(classes.most_common(3), sum(classes.values()))

# %% submit
SUBMIT(
    worst_package=worst_pkg,
    debt={p: dict(sorted(debt[p].items())) for p in sorted(debt)},
    top_owner=per_pkg_owner[worst_pkg].most_common(1)[0][0],
    longest_functions=[f"{f['path']}::{f['name']}" for f in longest[:3]],
)
