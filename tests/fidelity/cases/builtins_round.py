# round(): ndigits goes to __round__ as given; CPython's argument errors; the usual numbers.
def show(expression):
    try:
        print(expression, "->", repr(eval(expression)))
    except Exception as error:
        print(expression, "->", type(error).__name__ + ":", error)


class Custom:
    def __round__(self, ndigits=None):
        return ("rounded", ndigits)


class NoRound:
    pass


for expression in [
    "round(Custom(), ['x'])", "round(Custom(), None)", "round(Custom())", "round(Custom(), ndigits='a')",
    "round(NoRound())", "round()", "round(1, 2, 3)", "round(1.5, foo=2)", "round(number=2.675, ndigits=2)",
    "round(1.25, 1)", "round(2.5)", "round(-0.5)", "round(1234, -2)", "round(1.5, None)", "round(1.5, 'x')",
    "round(1.0, ndigits=1, number=2)", "round(10**30 + 0.5)", "round(float('inf'))", "round(float('nan'), 2)",
]:
    show(expression)
