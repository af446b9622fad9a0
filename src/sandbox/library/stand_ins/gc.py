"""The sandbox's ``gc``: RustPython's, without ``get_objects``, ``get_referrers`` and ``get_referents``, which
would hand out every object the VM holds, the sandbox's own machinery included (an AttributeError, as for a
function that is not there). The native module is handed over as ``gc_native`` only while this imports."""

from _sandbox_native import handed_over

gc_native = handed_over("gc")
del handed_over
from gc_native import (
    DEBUG_COLLECTABLE,
    DEBUG_LEAK,
    DEBUG_SAVEALL,
    DEBUG_STATS,
    DEBUG_UNCOLLECTABLE,
    callbacks,
    collect,
    disable,
    enable,
    freeze,
    garbage,
    get_count,
    get_debug,
    get_freeze_count,
    get_stats,
    get_threshold,
    is_finalized,
    is_tracked,
    isenabled,
    set_debug,
    set_threshold,
    unfreeze,
)

del gc_native
