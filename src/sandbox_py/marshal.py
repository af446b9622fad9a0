"""The sandbox's stand-in for ``marshal``, written for dspy-rust-interpreter.

Some standard-library modules import ``marshal`` without using it for anything sandbox code needs. Loading
or dumping code objects would let code craft bytecode, which the VM does not verify, so both refuse.
"""

version = 4


def _refuse(operation):
    def refused(*args, **kwargs):
        raise PermissionError(f"marshal.{operation}() is not available in the sandbox")

    refused.__name__ = operation
    return refused


dump = _refuse("dump")
dumps = _refuse("dumps")
load = _refuse("load")
loads = _refuse("loads")
