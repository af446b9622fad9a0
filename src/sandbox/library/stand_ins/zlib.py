"""The sandbox's ``zlib``: RustPython's, with its decompression errors in CPython's words (``Error -3 while
decompressing data: incorrect header check``; RustPython gives the reason alone, and code that matches on the
message, or a model reading it, expects CPython's). The native module is handed over as ``zlib_native`` only
while this imports."""

from _sandbox_native import adopt, handed_over

zlib_native = handed_over("zlib")
# Everything of the native module as it is (gzip uses its _ZlibDecompressor), then the two functions below.
adopt(zlib_native, globals())
del adopt, handed_over
error = zlib_native.error
_decompress = zlib_native.decompress
_decompressobj = zlib_native.decompressobj
del zlib_native

# zlib's return codes, as CPython puts them in its messages.
_Z_DATA_ERROR = -3
_Z_BUF_ERROR = -5


def _worded(failure):
    """``failure`` (a zlib.error) in CPython's words."""
    message = str(failure)
    if message.startswith("Error "):
        return failure
    code = _Z_BUF_ERROR if "incomplete or truncated" in message else _Z_DATA_ERROR
    return error(f"Error {code} while decompressing data: {message}")


def decompress(*args, **kwargs):
    """Returns a bytes object containing the uncompressed data."""
    try:
        return _decompress(*args, **kwargs)
    except error as failure:
        raise _worded(failure) from None


class _Decompress:
    """A decompression object (``decompressobj()``) whose errors are worded as CPython's."""

    __slots__ = ("_native",)

    def __init__(self, native):
        self._native = native

    def decompress(self, *args, **kwargs):
        try:
            return self._native.decompress(*args, **kwargs)
        except error as failure:
            raise _worded(failure) from None

    def flush(self, *args, **kwargs):
        try:
            return self._native.flush(*args, **kwargs)
        except error as failure:
            raise _worded(failure) from None

    def copy(self):
        return _Decompress(self._native.copy())

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    @property
    def unused_data(self):
        return self._native.unused_data

    @property
    def unconsumed_tail(self):
        return self._native.unconsumed_tail

    @property
    def eof(self):
        return self._native.eof


def decompressobj(*args, **kwargs):
    """Return a decompressor object."""
    return _Decompress(_decompressobj(*args, **kwargs))
