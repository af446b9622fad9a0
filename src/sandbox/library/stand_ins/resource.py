"""The sandbox's ``resource``: limits and usage as a session sees them, so code that reports its memory or CPU use
(``getrusage(RUSAGE_SELF).ru_maxrss``) and libraries that read a limit at import (CPython's ``test.support`` reads
``RLIMIT_STACK``) run. The limits are a Linux process's defaults (the session's own are its interpreter's options:
``timeout``, ``memory_limit``); setting one is refused. Usage counts this session's CPU time; its memory is not a
process's resident set, so ``ru_maxrss`` and the fault and I/O counters are 0."""

import time as _time

RLIM_INFINITY = -1
(
    RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_CORE, RLIMIT_RSS, RLIMIT_NPROC, RLIMIT_NOFILE,
    RLIMIT_MEMLOCK, RLIMIT_AS, RLIMIT_LOCKS, RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_NICE, RLIMIT_RTPRIO,
    RLIMIT_RTTIME,
) = range(16)
RLIMIT_OFILE = RLIMIT_NOFILE
RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD = 0, -1, 1

error = OSError

_LIMITS = {
    RLIMIT_STACK: (8 << 20, RLIM_INFINITY),
    RLIMIT_CORE: (0, RLIM_INFINITY),
    RLIMIT_NOFILE: (1024, 1024),
    RLIMIT_NPROC: (1, 1),
    RLIMIT_MEMLOCK: (8 << 20, 8 << 20),
    RLIMIT_MSGQUEUE: (819200, 819200),
    RLIMIT_NICE: (0, 0),
    RLIMIT_RTPRIO: (0, 0),
}
_FIELDS = (
    "ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt", "ru_nswap",
    "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw",
)


class struct_rusage(tuple):
    """getrusage()'s result: a tuple of 16 values, each also named ``ru_...``."""

    n_fields = n_sequence_fields = len(_FIELDS)
    n_unnamed_fields = 0

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != len(_FIELDS):
            raise TypeError(f"resource.struct_rusage() takes a 16-sequence ({len(values)}-sequence given)")
        return super().__new__(cls, values)

    def __repr__(self):
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(_FIELDS, self))
        return f"resource.struct_rusage({shown})"

    def __reduce__(self):
        return (struct_rusage, (tuple(self),))


for _index, _name in enumerate(_FIELDS):
    setattr(struct_rusage, _name, property(lambda self, _index=_index: tuple.__getitem__(self, _index)))
del _index, _name
struct_rusage.__module__ = "resource"


def _check(resource):
    if not isinstance(resource, int):
        raise TypeError(f"'{type(resource).__name__}' object cannot be interpreted as an integer")
    if not 0 <= resource < 16:
        raise ValueError("invalid resource specified")


def getrlimit(resource, /):
    _check(resource)
    return _LIMITS.get(resource, (RLIM_INFINITY, RLIM_INFINITY))


def setrlimit(resource, limits, /):
    _check(resource)
    raise PermissionError(1, "Operation not permitted: the session's limits are its interpreter's options (timeout, memory_limit)")


def prlimit(pid, resource, limits=None, /):
    if limits is not None:
        setrlimit(resource, limits)
    if pid not in (0, 1):
        raise ProcessLookupError(3, "No such process")
    return getrlimit(resource)


def getrusage(who, /):
    if who not in (RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD):
        raise ValueError("invalid who parameter")
    used = 0.0 if who == RUSAGE_CHILDREN else _time.process_time()
    return struct_rusage((used, 0.0) + (0,) * 14)


def getpagesize():
    return 4096
