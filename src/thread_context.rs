//! What a worker thread keeps from one session to the next.
//!
//! RustPython builds its built-in types once per thread and never frees them (~0.6 MB, and more as the
//! thread's string pool grows), and caches a few classes per thread the first time a VM asks for them
//! (`ExceptionGroup`, `io.UnsupportedOperation`, `struct.error`, `_csv.Error`). A new thread per session
//! leaked all that every time (2.3 MB per session). Worker threads are therefore reused, which is safe only
//! if nothing of one session stays reachable from what the thread keeps for the next:
//! - the built-in types are immutable to sandbox code, and the cached classes are made immutable here, so
//!   no session can leave anything on them;
//! - a few classes of each VM outlive its finalisation (some of its start-up classes: codecs, import
//!   machinery), with their dicts emptied by teardown; they are unlinked from every `__subclasses__()`
//!   list, the only way a later session could come across them.

use std::cell::RefCell;

use rustpython_vm::builtins::{PyType, PyTypeRef};
use rustpython_vm::types::PyTypeFlags;
use rustpython_vm::{AsObject, PyResult, VirtualMachine};

use crate::sandbox::all_types;

/// Where the classes RustPython caches per thread are found.
const CACHED_CLASSES: &[(&str, &str)] =
    &[("builtins", "ExceptionGroup"), ("_io", "UnsupportedOperation"), ("_struct", "error"), ("_csv_native", "Error")];

thread_local! {
    /// This thread's cached classes, made immutable; they outlive every session on the thread.
    static KEPT: RefCell<Vec<PyTypeRef>> = const { RefCell::new(Vec::new()) };
}

/// Make the classes RustPython caches on this thread immutable, before any sandbox code runs on it.
pub fn protect_cached_classes(vm: &VirtualMachine) -> PyResult<()> {
    for (module, name) in CACHED_CLASSES {
        let class = vm.import(*module, 0)?.get_attr(*name, vm)?;
        let class = class
            .downcast::<PyType>()
            .map_err(|_| vm.new_system_error(format!("{module}.{name} is expected to be a class")))?;
        let immutable = PyTypeFlags::from_slice(&[PyTypeFlags::IMMUTABLETYPE]);
        class.slots.flags.replace_masked(immutable, immutable);
        KEPT.with(|kept| {
            let mut kept = kept.borrow_mut();
            if !kept.iter().any(|known| known.is(class.as_object())) {
                kept.push(class);
            }
        });
    }
    Ok(())
}

/// A class that outlives every session on this thread (its dict must stay as it is).
pub fn is_kept(class: &PyType) -> bool {
    KEPT.with(|kept| kept.borrow().iter().any(|known| std::ptr::eq(&***known, class)))
}

/// After a session's VM is gone: take every class it left behind out of every `__subclasses__()` list.
pub fn unlink_leftovers() {
    let root = rustpython_vm::Context::genesis().types.object_type.to_owned();
    for class in all_types(&root) {
        class.subclasses.write().retain(|weak| {
            weak.upgrade().and_then(|sub| sub.downcast::<PyType>().ok()).is_some_and(|sub| {
                !sub.slots.flags.has_feature(PyTypeFlags::HEAPTYPE) || is_kept(&sub)
            })
        });
    }
}
