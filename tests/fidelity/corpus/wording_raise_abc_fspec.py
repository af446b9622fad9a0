# A plugin framework sketch: abstract base classes, bad raise/except targets, and format-spec errors.
# %% helper and the abstract bases
from abc import ABC, abstractmethod

def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

class Exporter(ABC):
    @abstractmethod
    def export(self, rows): ...

    @abstractmethod
    def extension(self) -> str: ...

    def describe(self) -> str:
        return f"{type(self).__name__} -> .{self.extension()}"

class CsvExporter(Exporter):
    def export(self, rows):
        return "\n".join(",".join(map(str, r)) for r in rows)

class JsonExporter(Exporter):
    def export(self, rows):
        import json
        return json.dumps(rows)

    def extension(self) -> str:
        return "json"

print(JsonExporter().describe())
print(sorted(Exporter.__abstractmethods__), sorted(CsvExporter.__abstractmethods__))

# %% instantiating abstract classes
show(lambda: Exporter())
show(lambda: CsvExporter())

# %% an incomplete plugin instantiated directly, uncaught
exporter = CsvExporter()

# %% fix the plugin
class CsvExporter(Exporter):
    def export(self, rows):
        return "\n".join(",".join(map(str, r)) for r in rows)

    def extension(self) -> str:
        return "csv"

exporters = [CsvExporter(), JsonExporter()]
for e in exporters:
    print(e.describe(), repr(e.export([[1, "a"], [2, "b"]])))
show(lambda: isinstance(exporters[0], Exporter))
show(lambda: issubclass(CsvExporter, Exporter))
show(lambda: Exporter.register(dict))
show(lambda: isinstance({}, Exporter))

# %% raising things that are not exceptions
def raise_code():
    raise 404

def raise_text():
    raise "export failed"

def raise_class_not_exc():
    raise int

def raise_from_bad():
    raise ValueError("bad rows") from 5

def raise_from_none():
    raise ValueError("bad rows") from None

show(raise_from_bad)
show(raise_from_none)

# %% raise an int / a str
show(raise_code)
show(raise_text)

# %% raise a non-exception class
show(raise_class_not_exc)

# %% except with a non-class, hit only when an exception is raised
def except_int():
    try:
        return 1 / 0
    except 5:
        return "caught"

def except_tuple():
    try:
        return 1 / 0
    except (ZeroDivisionError, "oops"):
        return "caught"

def except_unused():
    try:
        return "fine"
    except 5:
        return "caught"

show(except_unused)

# %% except 5 at raise time
# differs: "issubclass() arg 1 must be a class" instead of "catching classes that do not inherit from BaseException is not allowed"
show(except_int)

# %% except (ZeroDivisionError, "oops") at raise time
# differs: "issubclass() arg 1 must be a class" instead of "catching classes that do not inherit from BaseException is not allowed"
show(except_tuple)

# %% format spec errors in f-strings
total = 1234.5
label = "revenue"
show(lambda: f"{label:d}")
show(lambda: f"{total:d}")
show(lambda: f"{label:.2f}")
show(lambda: f"{None:>5}")
show(lambda: f"{[1]:>5}")
show(lambda: f"{5:,s}")
show(lambda: f"{5:=^}")
show(lambda: f"{label:=5}")
show(lambda: f"{5:.2s}")
show(lambda: f"{total:x}")
show(lambda: f"{5:%}")
show(lambda: f"{label:,}")
show(lambda: f"{5:_x}")
show(lambda: f"{5:,x}")
show(lambda: f"{5:#s}")
show(lambda: f"{5:.}")
show(lambda: f"{5:c}")
show(lambda: f"{-5:c}")
show(lambda: f"{total:c}")
show(lambda: f"{object():>5}")
show(lambda: f"{1+2j:d}")
show(lambda: f"{total:,.2f}")

# %% an unknown format code in an f-string
# differs: "Invalid format specifier" lacks " 'xyz' for object of type 'int'"
show(lambda: f"{5:xyz}")

# %% a spec with two precisions
# differs: "Invalid format specifier" lacks " '10.2.3f' for object of type 'float'"
show(lambda: f"{total:10.2.3f}")

# %% a thousands separator on a str amount, uncaught
amount = "1234"
print(f"Total: {amount:,}")

# %% fix
print(f"Total: {int(amount):,} | {total:>12,.2f} | {label!r:>12} | {0.256:.1%}")
