"""The sandbox's ``help()``, written for dspy-rust-interpreter.

CPython's ``help`` is ``pydoc``, which needs a pager, a terminal and the filesystem. This one prints what a
model needs to call something correctly: the signature and the documentation, for tools as for anything else.
"""


def help(obj=None):
    """Print how to use obj: its signature and documentation (e.g. help(some_tool), help(str.split))."""
    if obj is None:
        print("help(x) prints the signature and documentation of x: a tool, a function, a class, a module or a value.")
        return
    if isinstance(obj, str):
        print(f"help() takes the object itself, not its name: e.g. help(len), not help('len'). {obj!r} is a str:\n")
        obj = str
    print(_describe(obj))


def _describe(obj):
    kind = type(obj)
    if kind.__name__ == "module":
        lines = [f"module {obj.__name__}", *_indented(_doc(obj))]
        public = sorted(name for name in dir(obj) if not name.startswith("_"))
        if public:
            lines += ["", "names: " + ", ".join(public)]
        return "\n".join(lines)
    if isinstance(obj, type):
        lines = [f"class {obj.__qualname__}{_signature(obj)}", *_indented(_doc(obj))]
        methods = [
            (name, value)
            for name, value in vars(obj).items()
            if not name.startswith("_") and callable(value)
        ]
        if methods:
            lines += ["", "methods:"]
            lines += [f"    {name}{_signature(value)}: {_first_line(value)}" for name, value in methods]
        return "\n".join(lines)
    if callable(obj):
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or kind.__name__
        return "\n".join([f"{name}{_signature(obj)}", *_indented(_doc(obj))])
    return f"{kind.__name__} object: {_short_repr(obj)}\n\n" + _describe(kind)


def _signature(obj):
    try:
        import inspect

        return str(inspect.signature(obj))
    except (ImportError, TypeError, ValueError):
        return "(...)"


def _doc(obj):
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return ["(no documentation)"]
    lines = doc.expandtabs().strip().splitlines()
    rest = [line for line in lines[1:] if line.strip()]
    margin = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    return [lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]]


def _indented(lines):
    return ["    " + line if line else "" for line in lines]


def _first_line(obj):
    return _doc(obj)[0]


def _short_repr(obj):
    try:
        text = repr(obj)
    except Exception:
        return "<unrepresentable>"
    return text if len(text) <= 80 else text[:77] + "..."
