"""What the regex tests' sandbox programs print of a result, the same way in the sandbox and in CPython: a match as
its spans, groups, `lastindex`, `lastgroup` and `groupdict()`; a result as its repr (a long one cut, with a checksum
of the whole), or the name of the exception it raised; and every search method's result for each pattern over each
subject (`show_methods`), one line a pair."""

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
def show_methods(patterns, subjects):
    import re
    for pattern in patterns:
        compiled = re.compile(pattern)
        for subject in subjects:
            n = len(subject)
            print(repr(pattern), zlib.crc32(subject.encode()),
                  show('findall', lambda: compiled.findall(subject)),
                  show('bounded', lambda: compiled.findall(subject, 1, max(n - 2, 0))),
                  show('finditer', lambda: [matched(m) for m in compiled.finditer(subject)]),
                  show('finditer pos', lambda: [matched(m) for m in compiled.finditer(subject, 3)]),
                  show('search', lambda: matched(compiled.search(subject, 2))),
                  show('match', lambda: [matched(compiled.match(subject, at)) for at in range(0, n, 7)]),
                  show('sub', lambda: compiled.sub('<>', subject)),
                  show('subn', lambda: compiled.subn(lambda m: m.group().upper(), subject, 5)),
                  show('split', lambda: compiled.split(subject)),
                  show('maxsplit', lambda: compiled.split(subject, 2)))
"""
