//! Specialisations RustPython would keep after they went stale, put back to their adaptive forms: the code of a
//! cell run again, and of the functions the session's cells defined once the globals gained or lost names.
//!
//! Why: RustPython's specialised global loads (`LOAD_GLOBAL_BUILTIN`/`_MODULE`) guard on the globals' key version,
//! and when it no longer matches they take the slow lookup for good instead of specialising again (CPython's
//! fall back and respecialise). In a session the globals gain names all the time: a cell's first run stores its
//! results after its loops specialised, so each later run of that cell would read every global and builtin the
//! slow way (`r = [abs(5) for i in range(300000)]` run again is slower than as a new cell), and a helper defined
//! in one cell and called from later ones, after they stored names, would do the same on every call. Code
//! whose instructions are adaptive again warms up and specialises against the globals as they are, as new code
//! does.
//!
//! The functions are found through the cells that defined them (`worker::run::Cells` keeps each cell's code), not
//! the namespace: no attribute is read, imported functions (whose globals are their module's) are never
//! visited, and the walk is bounded by the code the session's cells hold, whatever the namespace holds.
//!
//! Code that `sys.monitoring` instruments is left as it is. It is safe while a generator of the code is suspended
//! or a frame runs it: an adaptive instruction has its specialised forms' argument and cache layout, and its
//! caches are zeroed as RustPython zeroes them when it puts instructions back to their base forms.

use std::borrow::Borrow;
use std::sync::atomic::Ordering;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::CodeUnits;
use rustpython_vm::PyObject;

/// Put every specialised instruction of `code`, and of the code objects it holds (comprehensions, generator
/// expressions, lambdas, functions, class bodies), back to its adaptive form with its caches zeroed and fresh
/// warm-up counters: as the compiler left it.
pub fn forget(code: &PyCode) {
    let units = &code.code.instructions;
    // Code `sys.monitoring` instruments is left as it is: an instrumented line or instruction keeps its own
    // opcode, and so where the next instruction starts, in the monitoring data; stepping over it as an opcode
    // without caches would read cache units as opcodes (and crafted code can turn that into a corrupted slot
    // offset). RustPython puts such code's instructions back to their base forms itself when it instruments.
    if code.monitoring_data.lock().is_none() && !instrumented(units) {
        let mut index = 0;
        while index < units.len() {
            let op = units.read_op(index);
            let adaptive = op.deoptimize();
            let caches = adaptive.cache_entries();
            if u8::from(adaptive) != u8::from(op) {
                // SAFETY: `index` is an instruction start, `index + 1 ..= index + caches` its cache units (the
                // adaptive form takes the same argument and caches as its specialised forms). The caches are
                // zeroed as RustPython zeroes them when it puts an instruction back for monitoring: an adaptive
                // instruction's caches are zero until it specialises.
                unsafe {
                    units.replace_op(index, adaptive);
                    for cache in index + 1..(index + 1 + caches).min(units.len()) {
                        units.write_cache_u16(cache, 0);
                    }
                }
            }
            index += 1 + caches;
        }
        if code.quickened.load(Ordering::Relaxed) {
            units.quicken();
        }
    }
    forget_held(code);
}

/// Whether any instruction of `units` is instrumented (read instruction by instruction up to the first one).
fn instrumented(units: &CodeUnits) -> bool {
    let mut index = 0;
    while index < units.len() {
        let op = units.read_op(index);
        if op.is_instrumented() {
            return true;
        }
        index += 1 + op.deoptimize().cache_entries();
    }
    false
}

/// `forget` the code objects `code` holds (its functions, lambdas, generator expressions and class bodies), not
/// its own: what a cell defined, to run again after the globals gained names.
pub fn forget_held(code: &PyCode) {
    for constant in code.code.constants.iter() {
        let constant: &PyObject = constant.borrow();
        if let Some(inner) = constant.downcast_ref::<PyCode>() {
            forget(inner);
        }
    }
}
