"""ctypes without native code: the C data types, their sizes and values, for the pure-Python code that asks
how big a C long is (sympy does, at import); loading a library, pointers and calls into C are refused (the
sandbox runs no native code). Sizes are those of this platform (Linux, 64-bit)."""

import struct as _struct

_NO_NATIVE = "loading native code is not available in the sandbox: it does not run native code; use pure Python"


class _SimpleCData:
    _type_ = "i"

    def __init__(self, value=None):
        self.value = self._default if value is None else value

    _default = 0

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"

    def __sizeof__(self):
        return _struct.calcsize(self._type_)


def _type(name, code, default=0):
    return type(name, (_SimpleCData,), {"_type_": code, "_default": default, "__module__": "ctypes"})


c_bool = _type("c_bool", "?", False)
c_char = _type("c_char", "c", b"\x00")
c_byte, c_ubyte = _type("c_byte", "b"), _type("c_ubyte", "B")
c_short, c_ushort = _type("c_short", "h"), _type("c_ushort", "H")
c_int, c_uint = _type("c_int", "i"), _type("c_uint", "I")
c_long, c_ulong = _type("c_long", "l"), _type("c_ulong", "L")
c_longlong, c_ulonglong = _type("c_longlong", "q"), _type("c_ulonglong", "Q")
c_size_t, c_ssize_t = _type("c_size_t", "N"), _type("c_ssize_t", "n")
c_float, c_double = _type("c_float", "f", 0.0), _type("c_double", "d", 0.0)
c_longdouble = type("c_longdouble", (c_double,), {"__sizeof__": lambda self: 16, "__module__": "ctypes"})
c_void_p, c_char_p, c_wchar_p = _type("c_void_p", "P", None), _type("c_char_p", "P", None), _type("c_wchar_p", "P", None)
c_wchar = _type("c_wchar", "I", "\x00")
c_int8, c_uint8, c_int16, c_uint16 = c_byte, c_ubyte, c_short, c_ushort
c_int32, c_uint32, c_int64, c_uint64 = c_int, c_uint, c_long, c_ulong


def sizeof(obj_or_type):
    """The size in bytes of a C type or instance."""
    if isinstance(obj_or_type, type) and issubclass(obj_or_type, _SimpleCData):
        return 16 if issubclass(obj_or_type, c_longdouble) else _struct.calcsize(obj_or_type._type_)
    if isinstance(obj_or_type, _SimpleCData):
        return obj_or_type.__sizeof__()
    raise TypeError("this type has no size")


def _refused(*args, **kwargs):
    raise OSError(_NO_NATIVE)


class CDLL:
    def __init__(self, *args, **kwargs):
        _refused()


PyDLL = CDLL
cdll = pydll = None
pointer = POINTER = cast = byref = addressof = create_string_buffer = CFUNCTYPE = _refused
