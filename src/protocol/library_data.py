"""Library data across the host boundary: numpy arrays and scalars, pandas Series, DataFrames, indexes and
timestamps, taken apart into plain parts (None, bool, int, float, str, bytes, lists and tuples, and other library
values, taken apart in turn) and made again on the other end by the same library. This file runs at both ends —
in the host's Python (src/host/convert.rs) and in a session's CPython (src/sandbox/cpython/) — so each kind is
written once: its branch in ``parts_of`` and its maker in ``_MAKERS``.

What a session sends is untrusted: each maker checks its parts and makes only data (an array's bytes are read
with a dtype of fixed-size values, never of objects; no pickles), so the worst a hostile part does is raise.

How to add a kind: a branch in ``parts_of`` returning ``(kind, parts)`` for exactly the types it serves (a subclass
is another kind: ``np.ma.MaskedArray`` is not an ``ndarray`` here), and a maker in ``_MAKERS`` that checks its
parts before it uses them."""

import re
import sys

# The dtype of an array sent as bytes: fixed-size values (bool, ints, floats, complex, datetimes, str, bytes).
_FIXED_KINDS = frozenset("biufcmMUS")
_DTYPE = re.compile(r"[<>|=]?[?bBhHiIlLqQpPefdgFDGmMUS][0-9]{0,6}(\[[0-9]*[a-zA-Z]{1,2}\])?\Z")
# A pandas dtype by name ('str', 'Int64', 'boolean', 'Float64', ...).
_PANDAS_DTYPE = re.compile(r"[A-Za-z][A-Za-z0-9]{0,15}(\[[a-z]{1,8}\])?\Z")
# A DatetimeIndex's frequency ('D', '2h', 'W-SUN', 'QE-DEC', ...).
_FREQUENCY = re.compile(r"[A-Za-z0-9-]{1,16}\Z")
_MAX_DIMS = 32
# From how many items an array of strs crosses as one text, and the characters that may join them.
_TEXTS_FROM = 64
_SEPARATORS = ("\x00", "\x1f", "\ufdd0", "\U0010fffe")
_MAX_ITEMS = 1 << 62


class HostBytes:
    """An array's data where the host writes it out from the array's own memory (no copy): its address and size,
    valid while this holds the array (numpy refuses to resize an array referred to elsewhere)."""

    __slots__ = ("array", "address", "size")

    def __init__(self, array):
        self.array = array
        self.address = array.__array_interface__["data"][0]
        self.size = array.nbytes


def parts_of(obj, as_bytes):
    """``(kind, parts)`` for a value of numpy's or pandas' that crosses, None for any other. ``as_bytes``: an
    array's data as bytes (else as ``HostBytes``)."""
    top = (type(obj).__module__ or "").partition(".")[0]
    if top == "numpy":
        return _numpy_parts(sys.modules["numpy"], obj, as_bytes)
    if top == "pandas" and "pandas" in sys.modules:
        return _pandas_parts(sys.modules["pandas"], sys.modules["numpy"], obj)
    return None


def make(kind, parts):
    """The value of ``kind`` made from ``parts`` (``parts_of``'s, from the other end): ValueError or TypeError
    when the parts are not what that kind sends."""
    maker = _MAKERS.get(kind)
    if maker is None:
        raise ValueError(f"unknown kind of library value {kind!r}")
    return maker(*_fields(parts, maker.__code__.co_argcount))


def _numpy_parts(np, obj, as_bytes):
    if type(obj) is np.ndarray:
        if obj.dtype == object:
            items = obj.reshape(-1).tolist()
            if len(items) >= _TEXTS_FROM and all(type(item) is str or item is None for item in items):
                texts = _texts(np, items)
                if texts is not None:
                    return "numpy.ndarray[str objects]", (obj.shape, *texts)
            return "numpy.ndarray[object]", (obj.shape, items)
        if not _fixed(obj.dtype):
            return None
        contiguous = obj if obj.flags.c_contiguous else obj.copy(order="C")
        data = contiguous.reshape(-1).view(np.uint8)
        return "numpy.ndarray", (obj.dtype.str, obj.shape, data.tobytes() if as_bytes else HostBytes(data))
    if isinstance(obj, np.generic) and _fixed(obj.dtype):
        return "numpy.scalar", (obj.dtype.str, obj.tobytes())
    return None


def _pandas_parts(pd, np, obj):
    kind = type(obj)
    if kind is pd.DataFrame:
        columns = [_array_of(pd, np, obj.iloc[:, i]) for i in range(obj.shape[1])]
        return "pandas.DataFrame", (obj.columns, columns, obj.index)
    if kind is pd.Series:
        return "pandas.Series", (_array_of(pd, np, obj), obj.index, obj.name)
    if kind is pd.RangeIndex:
        return "pandas.RangeIndex", (obj.start, obj.stop, obj.step, obj.name)
    if kind is pd.MultiIndex:
        return "pandas.MultiIndex", (list(obj.levels), [np.asarray(c) for c in obj.codes], list(obj.names))
    if kind in (pd.Index, pd.DatetimeIndex, pd.TimedeltaIndex, pd.CategoricalIndex):
        return "pandas.Index", (_array_of(pd, np, obj), obj.name, getattr(obj, "freqstr", None))
    if kind is pd.Categorical:
        return "pandas.Categorical", (np.asarray(obj.codes), obj.categories, bool(obj.ordered))
    if kind is pd.Timestamp:
        tz = obj.tz
        return "pandas.Timestamp", ((obj.tz_convert(None) if tz is not None else obj).asm8, _tz_name(tz))
    if kind is pd.Timedelta:
        return "pandas.Timedelta", (obj.asm8,)
    if obj is pd.NaT:
        return "pandas.NaT", ()
    if obj is pd.NA:
        return "pandas.NA", ()
    if isinstance(obj, pd.api.extensions.ExtensionArray):
        return _extension_parts(pd, np, obj)
    return None


def _array_of(pd, np, values):
    """The data of a Series or Index: a numpy array where its dtype is numpy's, else its pandas array."""
    if isinstance(values.dtype, np.dtype):
        return values.to_numpy(copy=False)
    return values.array


def _extension_parts(pd, np, array):
    dtype = array.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _pandas_parts(pd, np, pd.Categorical(array))
    if isinstance(dtype, pd.DatetimeTZDtype):
        utc = np.asarray(array.tz_convert("UTC").tz_localize(None))
        return "pandas.DatetimeArray[tz]", (utc, _tz_name(dtype.tz))
    name = str(dtype)
    plain = (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray, pd.arrays.StringArray)
    if type(array) not in plain or not _PANDAS_DTYPE.match(name):
        return None
    return "pandas.array", (name, array.to_numpy(dtype=object, na_value=None))


def _texts(np, items):
    """Many strs (or None) as one text: joined by a character none of them holds, and which are missing; None
    when each of the separators tried occurs in them."""
    present = [item for item in items if item is not None]
    for separator in _SEPARATORS:
        text = separator.join(present)
        if text.count(separator) == max(len(present) - 1, 0):
            missing = np.fromiter((item is None for item in items), dtype=bool, count=len(items))
            return text, separator, missing
    return None


def _tz_name(tz):
    return None if tz is None else str(getattr(tz, "key", None) or getattr(tz, "zone", None) or tz)


def _fixed(dtype):
    return dtype.kind in _FIXED_KINDS and dtype.fields is None and dtype.subdtype is None and dtype.itemsize > 0


def _fields(parts, count):
    if not isinstance(parts, (tuple, list)) or len(parts) != count:
        raise ValueError(f"expected {count} parts, got {type(parts).__name__}")
    return parts


def _need(name):
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
    return module


def _dtype(np, text):
    if not isinstance(text, str) or not _DTYPE.match(text):
        raise ValueError(f"not a dtype of fixed-size values: {text!r}")
    dtype = np.dtype(text)
    if not _fixed(dtype):
        raise ValueError(f"not a dtype of fixed-size values: {text!r}")
    return dtype


def _shape(shape):
    if not isinstance(shape, (tuple, list)) or len(shape) > _MAX_DIMS:
        raise ValueError("an array's shape is a tuple of at most 32 sizes")
    count = 1
    for size in shape:
        if type(size) is not int or not 0 <= size < _MAX_ITEMS:
            raise ValueError(f"not an array size: {size!r}")
        count = min(count * size, _MAX_ITEMS)
    if count >= _MAX_ITEMS:
        raise ValueError("too many items for an array")
    return tuple(shape), count


def _bytes(data):
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"an array's data is bytes, not {type(data).__name__}")
    return data


def _make_array(dtype, shape, data):
    np = _need("numpy")
    dtype = _dtype(np, dtype)
    shape, count = _shape(shape)
    data = _bytes(data)
    if len(data) != count * dtype.itemsize:
        raise ValueError(f"{len(data)} bytes are not {count} values of {dtype.str}")
    array = np.empty(shape, dtype)
    if count:
        array.reshape(-1).view(np.uint8)[:] = np.frombuffer(data, np.uint8)
    return array


def _make_object_array(shape, items):
    np = _need("numpy")
    shape, count = _shape(shape)
    if not isinstance(items, list) or len(items) != count:
        raise ValueError(f"an array of shape {shape} has {count} items")
    array = np.empty(count, dtype=object)
    for i, item in enumerate(items):
        array[i] = item
    return array.reshape(shape)


def _make_str_objects(shape, text, separator, missing):
    np = _need("numpy")
    shape, count = _shape(shape)
    if not isinstance(text, str) or separator not in _SEPARATORS or type(missing) is not np.ndarray:
        raise TypeError("an array of strs is a text, the character that joins them and which are missing")
    if missing.dtype != bool or missing.shape != (count,):
        raise ValueError(f"an array of shape {shape} has {count} missing flags")
    present = count - int(missing.sum())
    strs = text.split(separator) if present else []
    if len(strs) != present:
        raise ValueError(f"the text holds {len(strs)} strs, not {present}")
    array = np.empty(count, dtype=object)
    array[~missing] = np.array(strs, dtype=object)
    return array.reshape(shape)


def _make_scalar(dtype, data):
    np = _need("numpy")
    dtype = _dtype(np, dtype)
    if len(_bytes(data)) != dtype.itemsize:
        raise ValueError(f"{len(data)} bytes are not one value of {dtype.str}")
    return np.frombuffer(data, dtype)[0]


def _pandas():
    return _need("pandas"), _need("numpy")


def _is_array(pd, np, values):
    if type(values) is np.ndarray and values.ndim == 1:
        return values
    if isinstance(values, pd.api.extensions.ExtensionArray):
        return values
    raise TypeError(f"a column is a one-dimensional array, not {type(values).__name__}")


def _is_index(pd, index):
    if not isinstance(index, pd.Index):
        raise TypeError(f"an index is a pandas Index, not {type(index).__name__}")
    return index


def _make_frame(columns, values, index):
    pd, np = _pandas()
    columns, index = _is_index(pd, columns), _is_index(pd, index)
    if not isinstance(values, list) or len(values) != len(columns):
        raise ValueError("a DataFrame has one array per column")
    series = {}
    for i, column in enumerate(values):
        column = _is_array(pd, np, column)
        if len(column) != len(index):
            raise ValueError(f"column {i} has {len(column)} values for an index of {len(index)}")
        series[i] = pd.Series(column, index=index, dtype=column.dtype, copy=False)
    frame = pd.DataFrame(series, index=index, copy=False)
    frame.columns = columns
    return frame


def _make_series(values, index, name):
    pd, np = _pandas()
    values, index = _is_array(pd, np, values), _is_index(pd, index)
    if len(values) != len(index):
        raise ValueError(f"a Series of {len(values)} values has an index of {len(index)}")
    return pd.Series(values, index=index, dtype=values.dtype, name=name, copy=False)


def _make_range_index(start, stop, step, name):
    pd, _ = _pandas()
    if not all(type(n) is int for n in (start, stop, step)):
        raise TypeError("a RangeIndex is made of ints")
    return pd.RangeIndex(start, stop, step, name=name)


def _make_multi_index(levels, codes, names):
    pd, np = _pandas()
    if not (isinstance(levels, list) and isinstance(codes, list) and isinstance(names, list)):
        raise TypeError("a MultiIndex is made of lists")
    levels = [_is_index(pd, level) for level in levels]
    codes = [_is_array(pd, np, code) for code in codes]
    return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=True)


def _make_index(values, name, freq):
    pd, np = _pandas()
    values = _is_array(pd, np, values)
    index = pd.Index(values, dtype=values.dtype, name=name, copy=False)
    if freq is None:
        return index
    if not isinstance(freq, str) or not _FREQUENCY.match(freq) or not isinstance(index, (pd.DatetimeIndex, pd.TimedeltaIndex)):
        raise ValueError(f"not the frequency of a DatetimeIndex or TimedeltaIndex: {freq!r}")
    return type(index)(index, freq=freq)


def _make_categorical(codes, categories, ordered):
    pd, np = _pandas()
    codes, categories = _is_array(pd, np, codes), _is_index(pd, categories)
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(categories, ordered=bool(ordered)))


def _make_datetime_tz(utc, tz):
    pd, np = _pandas()
    utc = _is_array(pd, np, utc)
    if not isinstance(tz, str) or utc.dtype.kind != "M":
        raise TypeError("a time-zone-aware array is UTC datetimes and a time zone's name")
    return pd.array(utc).tz_localize("UTC").tz_convert(tz)


def _make_pandas_array(dtype, items):
    pd, np = _pandas()
    if not isinstance(dtype, str) or not _PANDAS_DTYPE.match(dtype):
        raise ValueError(f"not a pandas dtype: {dtype!r}")
    items = _is_array(pd, np, items)
    return pd.array(items, dtype=pd.api.types.pandas_dtype(dtype))


def _make_timestamp(utc, tz):
    pd, np = _pandas()
    if not isinstance(utc, np.datetime64) or not (tz is None or isinstance(tz, str)):
        raise TypeError("a Timestamp is a numpy datetime64 and a time zone's name")
    stamp = pd.Timestamp(utc)
    return stamp if tz is None else stamp.tz_localize("UTC").tz_convert(tz)


def _make_timedelta(value):
    pd, np = _pandas()
    if not isinstance(value, np.timedelta64):
        raise TypeError("a Timedelta is a numpy timedelta64")
    return pd.Timedelta(value)


_MAKERS = {
    "numpy.ndarray": _make_array,
    "numpy.ndarray[object]": _make_object_array,
    "numpy.ndarray[str objects]": _make_str_objects,
    "numpy.scalar": _make_scalar,
    "pandas.DataFrame": _make_frame,
    "pandas.Series": _make_series,
    "pandas.RangeIndex": _make_range_index,
    "pandas.MultiIndex": _make_multi_index,
    "pandas.Index": _make_index,
    "pandas.Categorical": _make_categorical,
    "pandas.DatetimeArray[tz]": _make_datetime_tz,
    "pandas.array": _make_pandas_array,
    "pandas.Timestamp": _make_timestamp,
    "pandas.Timedelta": _make_timedelta,
    "pandas.NaT": lambda: _pandas()[0].NaT,
    "pandas.NA": lambda: _pandas()[0].NA,
}
