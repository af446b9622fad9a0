# inspect.signature of builtin callables, as CPython 3.14 reads them from their __text_signature__ (sorted has one,
# max has none), functions, methods, bound methods and class methods alike.
import inspect
import itertools
import json
import math
import operator

callables = {
    "sorted": sorted, "max": max, "min": min, "len": len, "print": print, "sum": sum, "round": round, "iter": iter,
    "next": next, "getattr": getattr, "isinstance": isinstance, "divmod": divmod, "pow": pow, "abs": abs,
    "str.split": str.split, "str.join": str.join, "str.replace": str.replace, "str.startswith": str.startswith,
    "list.append": list.append, "list.sort": list.sort, "list.index": list.index, "dict.get": dict.get,
    "dict.fromkeys": dict.fromkeys, "dict.pop": dict.pop, "bound split": "a b".split, "bound append": [].append,
    "math.sqrt": math.sqrt, "math.isclose": math.isclose, "operator.add": operator.add, "json.dumps": json.dumps,
    "itertools.chain.from_iterable": itertools.chain.from_iterable, "int.to_bytes": int.to_bytes,
    "str.maketrans": str.maketrans, "bytes.hex": bytes.hex, "float.fromhex": float.fromhex,
}
for name, function in callables.items():
    try:
        print(name, inspect.signature(function))
    except (ValueError, TypeError) as error:
        # The message names the callable with its address: its type is what is compared.
        print(name, type(error).__name__)
print(max.__text_signature__, str.split.__text_signature__)
