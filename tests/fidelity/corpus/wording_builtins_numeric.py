# A CodeAct session probing how builtins fail, to write robust converters: abs/all/any/bin/chr/divmod/hash/format/getattr.
# %% a helper to see each failure's exact wording
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

show(lambda: abs(-3))
show(lambda: abs())
show(lambda: abs(1, 2))
show(lambda: abs("x"))

# %% all / any argument errors
show(lambda: all())
show(lambda: all(1))
show(lambda: all([1], [2]))
show(lambda: any(5))
show(lambda: any([0, "", None]))

# %% keyword arguments to positional-only builtins
# differs: abs()/any() with a keyword say "takes exactly one argument (0 given)" instead of "takes no keyword arguments"
show(lambda: abs(x=1))
show(lambda: any(iterable=[1]))

# %% bin, callable, chr
show(lambda: bin(1.5))
show(lambda: bin("3"))
show(lambda: bin())
show(lambda: hex(1.5))
show(lambda: oct("8"))
show(lambda: callable())
show(lambda: callable(1, 2))
show(lambda: chr(-1))
show(lambda: chr(0x110000))
show(lambda: chr("a"))
show(lambda: chr(1.0))
show(lambda: chr())

# %% divmod with the wrong arity or types
show(lambda: divmod(1))
show(lambda: divmod("a", 2))
show(lambda: divmod(1, 2, 3))
show(lambda: divmod(7, 2.5))
show(lambda: divmod(-7, 2))

# %% divmod by zero (int)
show(lambda: divmod(1, 0))

# %% divmod by zero (float)
show(lambda: divmod(1.0, 0))

# %% hashing unhashable things
show(lambda: hash([]))
show(lambda: hash({}))
show(lambda: hash({1}))
show(lambda: hash())
show(lambda: hash((1, [2])))
show(lambda: hash((1, "a")) == hash((1, "a")))

# %% a grouping that uses a list as a dict key
rows = [["north", 120], ["south", 80], ["north", 45]]
totals = {}
for row in rows:
    totals[row] = totals.get(row, 0) + row[1]
print(totals)

# %% fix: key on the region string
totals = {}
for region, amount in rows:
    totals[region] = totals.get(region, 0) + amount
print(sorted(totals.items()))

# %% format() with mismatched specs
show(lambda: format("a", "d"))
show(lambda: format(1.5, "d"))
show(lambda: format())
show(lambda: format(5, "+s"))
show(lambda: format("a", "+"))
show(lambda: format(5, "z"))
show(lambda: format(1234.5, ",.1f"))

# %% format() with an unknown spec
# differs: "Invalid format specifier" lacks " 'xyz' for object of type 'int'"
show(lambda: format(5, "xyz"))

# %% format() with a non-str spec
# differs: "format() argument must be str" instead of "format() argument 2 must be str"
show(lambda: format(1, 2))

# %% getattr / hasattr / setattr / delattr
show(lambda: getattr(1))
show(lambda: getattr(1, "nope"))
show(lambda: getattr(1, 2))
show(lambda: getattr(None, "x"))
show(lambda: getattr(1, "x", 2, 3))
show(lambda: getattr(1, "real", 2))
show(lambda: getattr())
show(lambda: hasattr(1))
show(lambda: hasattr(1, 2))
show(lambda: hasattr(1, "real", 2))
show(lambda: delattr(1, "real"))
show(lambda: delattr(object(), "x"))
