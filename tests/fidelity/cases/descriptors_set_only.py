# A descriptor with __set__ (or __delete__) but no __get__: every store calls it, however warm the store is
# (networkx keeps a graph's _adj and _succ in step this way), and a read finds the instance dict first.
calls = []


class Mirror:
    def __set__(self, obj, value):
        calls.append("set")
        obj.__dict__["_adj"] = value
        obj.__dict__["_succ"] = value


class Erase:
    def __delete__(self, obj):
        calls.append("delete")
        obj.__dict__.pop("tag", None)


class Graph:
    _adj = Mirror()
    tag = Erase()

    def __init__(self):
        self._adj = {}
        self.__dict__["tag"] = "t"

    def clear(self):
        self._succ.clear()
        del self.tag


class Sub(Graph):
    pass


missing = 0
for cls in [Graph, Sub] * 150:
    g = cls()
    missing += "_succ" not in g.__dict__
    g.clear()
print(missing, len(calls), calls[:2], calls[-2:])
print(type(Graph._adj).__name__, type(Graph()._adj).__name__)
g = Graph()
print(g.tag, "tag" in vars(g))
