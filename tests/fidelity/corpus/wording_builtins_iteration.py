# Exploring iteration builtins' failure messages: enumerate/filter/map/iter/len/list/dict/tuple/zip/next.
# %% helper
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

events = [("login", 3), ("search", 12), ("logout", 3), ("search", 7)]
show(lambda: list(enumerate(events, 1))[:2])

# %% enumerate with bad arguments
show(lambda: enumerate(5))
show(lambda: enumerate([1], "a"))
show(lambda: enumerate(None))
show(lambda: list(enumerate("ab", start=10)))

# %% enumerate without its iterable
# differs: the sandbox adds " (pos 1)" to "enumerate() missing required argument 'iterable'"
show(lambda: enumerate())

# %% enumerate with three positionals
# differs: "enumerate expected at most 2 arguments, got 3" instead of "enumerate() takes at most 2 arguments (3 given)"
show(lambda: enumerate([1], 0, 1))

# %% enumerate with a wrong keyword
# differs: "enumerate() got an unexpected keyword argument 'begin'" instead of "'begin' is an invalid keyword argument for enumerate()"
show(lambda: enumerate([1], begin=1))

# %% filter and map
show(lambda: filter(None))
show(lambda: filter(None, 5))
show(lambda: filter(lambda x: x, [1], [2]))
show(lambda: map(len))
show(lambda: map(len, 5))
show(lambda: list(map(len, [1])))
show(lambda: list(map(lambda kv: kv[1], events)))
show(lambda: list(map(int, ["1", "two"])))

# %% map() with no arguments at all
# differs: "map expected 1 argument, got 0" instead of "map() must have at least two arguments."
show(lambda: map())

# %% iter and len
show(lambda: iter())
show(lambda: iter(5))
show(lambda: iter(None))
show(lambda: iter([1], 2, 3))
show(lambda: len())
show(lambda: len(5))
show(lambda: len(None))
show(lambda: len(x for x in events))
show(lambda: len([1], [2]))
show(lambda: len(map(str, events)))

# %% iter(callable, sentinel) with a non-callable
# differs: "'int' object is not callable" instead of "iter(v, w): v must be callable"
show(lambda: iter(5, 6))

# %% list / tuple / dict constructors
show(lambda: list(5))
show(lambda: list(1, 2))
show(lambda: list(None))
show(lambda: tuple(5))
show(lambda: tuple(1, 2))
show(lambda: dict(5))
show(lambda: dict([(1, 2, 3)]))
show(lambda: dict(["ab", "cd"]))
show(lambda: dict(1, 2))
show(lambda: dict([[1]]))
show(lambda: dict(events))

# %% keyword arguments to list() and tuple()
# differs: "got an unexpected keyword argument 'x'" instead of "list() takes no keyword arguments"
show(lambda: list(x=1))
show(lambda: tuple(x=1))

# %% dict() from a flat list
show(lambda: dict([1, 2]))

# %% zip, with and without strict
names = ["ada", "grace", "alan"]
ages = [36, 45]
show(lambda: list(zip(names, ages)))
show(lambda: zip(5))
show(lambda: zip([1], 5))
show(lambda: list(zip(names, ages, strict=True)))
show(lambda: list(zip(ages, names, strict=True)))
show(lambda: list(zip([1], [2], [3, 4], strict=True)))
show(lambda: list(zip([1, 2], [3], [4], strict=True)))
show(lambda: list(zip([1], foo=True)))
show(lambda: list(zip([1], [2], strict=True)))

# %% a strict zip inside a loop, uncaught
for name, age in zip(names, ages, strict=True):
    print(name, age)

# %% next()
show(lambda: next())
show(lambda: next([1]))
show(lambda: next(iter([])))
show(lambda: next(5))
show(lambda: next(iter([]), 1, 2))
show(lambda: next(iter([]), "default"))

# %% first search event over 20, uncaught StopIteration
first_big = next(count for kind, count in events if count > 20)
print(first_big)

# %% fix with a default
first_big = next((count for kind, count in events if count > 20), None)
print("first big:", first_big)
