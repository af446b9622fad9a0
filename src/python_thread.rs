//! The worker thread's CPython thread state, kept for the whole session.
//!
//! The worker takes the GIL for every tool call and every value it hands to the host. Without a thread
//! state of its own, each of those would create one and delete it after (with a fresh frame stack mapped
//! and unmapped each time), which made a tool call cost several microseconds in the kernel alone. Keeping
//! one, with the GIL released, makes taking the GIL a plain lock hand-over.

use pyo3::ffi;

pub struct PythonThread {
    registration: ffi::PyGILState_STATE,
    saved: *mut ffi::PyThreadState,
}

impl PythonThread {
    /// Register this thread with CPython and release the GIL again; the registration stays until drop.
    pub fn register() -> Self {
        // SAFETY: the interpreter is initialised (a session is only created from Python); Ensure and
        // SaveThread pair with RestoreThread and Release in drop, on this same thread.
        unsafe {
            let registration = ffi::PyGILState_Ensure();
            let saved = ffi::PyEval_SaveThread();
            Self { registration, saved }
        }
    }
}

impl Drop for PythonThread {
    fn drop(&mut self) {
        // SAFETY: see `register`; this thread holds no GIL here (every `Python::attach` has ended).
        unsafe {
            ffi::PyEval_RestoreThread(self.saved);
            ffi::PyGILState_Release(self.registration);
        }
    }
}

/// Take the host's GIL for `f` with the VM's automatic collector paused. This build collects inline, on an
/// allocation: converting values (which allocates VM objects) would otherwise run whatever finalizers
/// (`__del__`, weakref callbacks) the collection found, while the host waits on the GIL, out of reach of
/// every limit. Garbage waits for the next allocation after.
pub fn with_host_gil<R>(vm: &rustpython_vm::VirtualMachine, f: impl for<'py> FnOnce(pyo3::Python<'py>) -> R) -> R {
    struct Resume<'a>(&'a rustpython_vm::VirtualMachine, bool);
    impl Drop for Resume<'_> {
        fn drop(&mut self) {
            if self.1 {
                self.0.state.gc.enable();
            }
        }
    }
    let _resume = Resume(vm, vm.state.gc.is_enabled());
    vm.state.gc.disable();
    pyo3::Python::attach(f)
}
