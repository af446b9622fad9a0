# Ranking scores: checking max/min/sorted/sum/pow/range/reversed/round/slice errors before aggregating.
# %% helper and data
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

scores: dict[str, list] = {"ada": [91, 78, 88], "alan": [65, "72", 80], "grace": []}
print({k: len(v) for k, v in scores.items()})

# %% max and min
show(lambda: max())
show(lambda: max([]))
show(lambda: max(5))
show(lambda: max(1, "a"))
show(lambda: max([1, "a"]))
show(lambda: max([], default=0, key=len))
show(lambda: max(1, 2, default=0))
show(lambda: max([1], foo=1))
show(lambda: min(()))
show(lambda: min(None))
show(lambda: min([1, None]))
show(lambda: max(scores["grace"]))

# %% best score per student, uncaught
best = {name: max(vals) for name, vals in scores.items()}
print(best)

# %% sorted misuse
show(lambda: sorted())
show(lambda: sorted(5))
show(lambda: sorted([1], len))
show(lambda: sorted([3, 1], key=None, reverse=True))
show(lambda: sorted([1, "a"]))
show(lambda: sorted([1, 2], key=len))
show(lambda: sorted([{}, {}]))
show(lambda: sorted([None, 1]))
show(lambda: sorted(scores["alan"]))

# %% sorted with Python 2's cmp=
show(lambda: sorted([1], cmp=lambda a, b: 0))

# %% sorted with a non-bool reverse
show(lambda: sorted([1], reverse="yes"))

# %% sum
show(lambda: sum())
show(lambda: sum(5))
show(lambda: sum(["a", "b"]))
show(lambda: sum(["a", "b"], ""))
show(lambda: sum([[1], [2]]))
show(lambda: sum([b"a"], b""))
show(lambda: sum([1], 2, 3))
show(lambda: sum([1, "a"]))
show(lambda: sum([1], start=[]))
show(lambda: sum(scores["alan"]))
show(lambda: sum([[1], [2]], []))

# %% ord and pow
show(lambda: ord(""))
show(lambda: ord("ab"))
show(lambda: ord(5))
show(lambda: ord())
show(lambda: ord(b"ab"))
show(lambda: pow(2))
show(lambda: pow(2, 3, 0))
show(lambda: pow(2.0, 3, 5))
show(lambda: pow(2, -1, 4))
show(lambda: pow("a", 2))
show(lambda: pow(2, "a"))
show(lambda: pow(-8, 1 / 3))

# %% zero to a negative power
show(lambda: pow(0, -1))
show(lambda: pow(0.0, -1))

# %% range
show(lambda: range())
show(lambda: range(1.5))
show(lambda: range("5"))
show(lambda: range(1, 2, 0))
show(lambda: range(1, 2, 3, 4))
show(lambda: range(10)[20])
show(lambda: range(len(scores["ada"]) / 2))

# %% range with a keyword
# differs: "range expected at least 1 argument, got 0" instead of "range() takes no keyword arguments"
show(lambda: range(stop=5))

# %% range indexed by a str
# differs: "sequence indices be integers or slices or classes that override __index__ operator, not 'str'" instead of "range indices must be integers or slices, not str"
show(lambda: range(10)["a"])

# %% repr, round, setattr, slice
show(lambda: repr())
show(lambda: repr(1, 2))
show(lambda: round("1.5"))
show(lambda: round(1.5, "a"))
show(lambda: round(1.5, 1.0))
show(lambda: round())
show(lambda: round(1, 2, 3))
show(lambda: round(float("inf")))
show(lambda: round(float("nan")))
show(lambda: round(None))
show(lambda: setattr(1, "x", 2))
show(lambda: setattr(object(), "x", 2))
show(lambda: setattr(1, "x"))
show(lambda: setattr(1, 2, 3))
show(lambda: slice())
show(lambda: slice(1, 2, 3, 4))
show(lambda: [1, 2][slice(1.5)])
show(lambda: [1, 2][::0])
word = "abc"
show(lambda: word["a"])
show(lambda: word[1.5])
show(lambda: [1][None:"a"])

# %% indexing a str literal with a str: compile-time SyntaxWarning
show(lambda: "abc"["a"])
show(lambda: "abc"[1.5])

# %% reversed over things that are not sequences
# differs: "argument to reversed() must be a sequence" instead of "'int' object is not reversible"
show(lambda: reversed(5))
show(lambda: reversed({1, 2}))

# %% reversed over a generator
# differs: "argument to reversed() must be a sequence" instead of "'generator' object is not reversible"
show(lambda: reversed(x for x in range(3)))

# %% reversed without arguments
# differs: "reversed() takes exactly one argument (0 given)" instead of "reversed expected 1 argument, got 0"
show(lambda: reversed())

# %% fixed ranking
clean = {k: [int(v) for v in vals] for k, vals in scores.items() if vals}
ranking = sorted(clean, key=lambda k: sum(clean[k]) / len(clean[k]), reverse=True)
print(ranking, [round(sum(clean[k]) / len(clean[k]), 2) for k in ranking])
