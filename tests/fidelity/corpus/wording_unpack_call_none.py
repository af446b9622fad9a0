# Everyday slips in an agent loop: unpacking, calling non-callables, None results, wrong call signatures.
# %% helper and data
from dataclasses import dataclass

def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

scores = {"ada": 91, "alan": 78, "grace": 88}
pairs = [("ada", 91, "A"), ("alan", 78, "C")]
print(sorted(scores.items()))

# %% iterating a dict as pairs, uncaught
for name, score in scores:
    print(name, score)

# %% fix with items()
for name, score in sorted(scores.items()):
    print(f"{name:<6}{score:>4}")

# %% unpacking errors that match
def u_few():
    a, b, c = [1, 2]
def u_int():
    a, b = 5
def u_str():
    a, b = "abc"
def u_star():
    a, *b, c = [1]
def u_nested():
    (x, y), z = 1, 2
def u_none():
    a, b = None
def u_dict():
    a, b = {"x": 1}
def u_gen():
    a, b = (i for i in range(5))
def u_empty():
    [a] = []
for f in (u_few, u_int, u_str, u_star, u_nested, u_none, u_dict, u_gen, u_empty):
    show(f)

# %% too many values from a list
def u_many():
    first, second = [1, 2, 3]
show(u_many)

# %% too many values from tuples in a for loop, uncaught
for name, score in pairs:
    print(name, score)

# %% calling things that are not callable
total = 257
nothing = None
word, items, pair = "abc", [1], (1, 2)
show(lambda: nothing())
show(lambda: total())
show(lambda: word())
show(lambda: items())
show(lambda: scores())
show(lambda: pair(3))
show(lambda: print(*5))
show(lambda: print(**[1]))
show(lambda: dict(**{1: 2}))

# %% None where a value was expected
ordered = list(scores.values()).sort()
match_ = __import__("re").match(r"\d+", "abc")
show(lambda: ordered[0])
show(lambda: nothing["k"])
show(lambda: total[0])
show(lambda: match_.group())
show(lambda: None.split)
show(lambda: None.get("x"))
show(lambda: (5).append)
show(lambda: "a".foo)
show(lambda: [].push)
show(lambda: str.foo)
show(lambda: int.bar)
show(lambda: (1, 2).append(3))
show(lambda: "abc".append("d"))
show(lambda: [].lenght)
show(lambda: len(ordered))

# %% calling and subscripting literals: compile-time SyntaxWarnings
show(lambda: None())
show(lambda: [1, 2](3))
show(lambda: None["k"])

# %% calling user functions and classes with the wrong arguments
@dataclass
class Row:
    name: str
    score: int = 0

class Grader:
    def __init__(self, cutoff):
        self.cutoff = cutoff
    def grade(self, score):
        return "pass" if score >= self.cutoff else "fail"

show(lambda: Row())
show(lambda: Row("a", 1, 2))
show(lambda: Row("a", grade=2))
show(lambda: Row("a", name="b"))
show(lambda: Grader())
show(lambda: Grader(1, 2))
show(lambda: Grader(80).grade())
show(lambda: Grader(80).grade(1, 2))
show(lambda: Grader.grade(90))
show(lambda: Grader(80)[0])
show(lambda: Grader(80)())
show(lambda: len(Grader(80)))
show(lambda: iter(Grader(80)))
show(lambda: Grader(80) + 1)
show(lambda: Grader(80) < Grader(90))
show(lambda: hash(Row("a")))
show(lambda: (lambda a: a)(1, 2))
show(lambda: (lambda a: a)())
show(lambda: (lambda a: a)(b=1))
show(lambda: (lambda a: a)(1, a=1))
show(lambda: (lambda a, b: a)(1))
show(lambda: (lambda *, k: k)(1))
show(lambda: (lambda a, /: a)(a=1))

# %% print with non-str sep / end
# differs: "print() argument must be str, not int" instead of "sep must be None or a string, not int" / "end must be None or a string, not int"
show(lambda: print("a", "b", sep=1))
show(lambda: print("a", end=5))

# %% grading, with a str score slipped in, uncaught
g = Grader(80)
report = {name: g.grade(score) for name, score in [("ada", 91), ("alan", "78")]}

# %% fix and submit
report = {name: g.grade(int(score)) for name, score in [("ada", 91), ("alan", "78")]}
SUBMIT(report)
