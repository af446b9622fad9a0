"""What the regex tests' sandbox programs print of a result, the same way in the sandbox and in CPython: a match as
its spans, groups, `lastindex`, `lastgroup` and `groupdict()`; a result as its repr (a long one cut, with a checksum
of the whole), or the name of the exception it raised."""

SHOWING = r"""
import zlib
def matched(m):
    return m and (m.span(), m.regs, m.groups(), m.lastindex, m.lastgroup, m.groupdict())
def show(label, call):
    try:
        found = repr(call())
    except Exception as e:
        return label + '!' + type(e).__name__
    return label + '=' + (found if len(found) < 120 else found[:60] + '...' + str(zlib.crc32(found.encode())))
"""
