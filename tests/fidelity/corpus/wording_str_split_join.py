# Parsing a CSV-ish header with str methods: split/join/replace/startswith/index/strip/partition misuse.
# %% helper and a header line
def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

header = "id, name ,  email,signup_date , plan"
cols = [c.strip() for c in header.split(",")]
print(cols)

# %% split / join misuse
show(lambda: header.split(",", "1"))
show(lambda: header.split(""))
show(lambda: header.split(sep=",", max=1))
show(lambda: header.split(",", maxsplit=2))
show(lambda: ",".join([1, 2]))
show(lambda: ",".join(["a", 2]))
show(lambda: ",".join(5))
show(lambda: ",".join())
show(lambda: ",".join("a", "b"))
show(lambda: ",".join([b"a"]))
show(lambda: ",".join([None]))
show(lambda: str.join(",", 5))

# %% joining ids, uncaught
ids = [101, 102, 103]
print("ids: " + ", ".join(ids))

# %% fix
print("ids: " + ", ".join(map(str, ids)))

# %% split with a non-str separator
show(lambda: header.split(1))

# %% split with three positionals
show(lambda: header.split(",", 1, 2))

# %% replace with one argument
# differs: "replace expected at least 2 arguments, got 1" instead of "replace() takes at least 2 positional arguments (1 given)"
show(lambda: header.replace(" "))

# %% replace with non-str arguments
# differs: "replace() argument must be str, not int" instead of "replace() argument 1 must be str, not int" (and "argument 2")
show(lambda: header.replace(1, 2))
show(lambda: header.replace(" ", 2))

# %% replace with four arguments
# differs: "replace expected at most 3 arguments, got 4" instead of "replace() takes at most 3 arguments (4 given)"
show(lambda: header.replace(" ", "", 1, 2))

# %% replace count and startswith
show(lambda: header.replace(" ", "", "all"))
show(lambda: header.replace(" ", "", count=3))
show(lambda: header.startswith(["id"]))
show(lambda: header.startswith(1))
show(lambda: header.startswith(("id", 1)))
show(lambda: header.startswith(("x", "id")))
show(lambda: header.endswith(["plan"]))
show(lambda: header.endswith(None))
show(lambda: header.startswith())

# %% startswith with a str start position
# differs: "'str' object cannot be interpreted as an integer" instead of "slice indices must be integers or None or have an __index__ method"
show(lambda: header.startswith("id", "0"))

# %% startswith / lower with keywords
# differs: "startswith expected at least 1 argument, got 0" and "lower() got an unexpected keyword argument 'x'" instead of "str.startswith() takes no keyword arguments" / "str.lower() takes no keyword arguments"
show(lambda: header.startswith(prefix="id"))
show(lambda: header.lower(x=1))

# %% index / find / count
show(lambda: header.index("zip"))
show(lambda: header.index())
show(lambda: header.rindex("zip"))
show(lambda: header.count())
show(lambda: header.upper(1))
show(lambda: header.removeprefix(1))
show(lambda: header.partition(""))
show(lambda: header.translate(5))
show(lambda: str.maketrans("ab", "c"))
show(lambda: header.expandtabs("x"))
show(lambda: cols.index("zip"))

# %% index / find with an int needle
# differs: "index() argument must be str, not int" instead of "index() argument 1 must be str, not int" (same for find)
show(lambda: header.index(1))
show(lambda: header.find(1))

# %% strip with an int
show(lambda: header.strip(1))

# %% partition with an int
# differs: "partition() argument must be str, not int" instead of "must be str, not int"
show(lambda: header.partition(1))

# %% splitlines with a str keepends (any truth value, as CPython takes it)
show(lambda: "a".splitlines("x"))

# %% calling an unbound str method without self
# differs: "str.upper() takes no arguments (0 given)" instead of "unbound method str.upper() needs an argument"
show(lambda: str.upper())

# %% the final column map
col_index = {name: i for i, name in enumerate(cols)}
print(col_index)
print(col_index["email"], "email" in col_index, col_index.get("zip", -1))
