//! The host's compiled packages (numpy, pandas, matplotlib, scipy, ...) inside a session: they run in the session
//! process's own CPython, under the session's filter, limits and identity, and the sandbox reaches them through
//! a bridge in the same process.
//!
//! A package set that names a distribution with compiled modules has a zygote that is the host's CPython with
//! those distributions (and what they require) imported before it is confined (`zygote`); every session forked
//! from it has them imported too. In the sandbox, `import numpy` gives a module whose attributes are CPython's
//! (`machinery/_sandbox_cpython.py`); objects cross as plain values (numbers, str, bytes, containers of them,
//! standard-library values by pickle) or as handles whose class mirrors CPython's (`values`); sandbox functions
//! and objects handed to CPython are called back as sandbox code; CPython's files, streams and warnings are the
//! session's (`cpython_side.py`, the CPython end). `natives` is the sandbox end's primitives; `memory` counts
//! numpy's array data and CPython's own memory against the session's memory limit.
//!
//! What CPython reaches is bounded twice: by the bridge, which hands the sandbox only the packages' own objects
//! (the standard library's modules and functions are the sandbox's own: `np.lib.npyio.os` is the sandbox's
//! `os`), and by the session process's confinement, which holds whatever code runs in it.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::PyType;
use rustpython_vm::{PyObjectRef, VirtualMachine};

mod memory;
mod natives;
mod values;
pub mod zygote;

/// The CPython end (`cpython_side.py`), once a package set's zygote prepared it.
static SIDE: OnceLock<Py<PyModule>> = OnceLock::new();

/// How deep CPython calls made for the sandbox are nested now (callbacks in between): the monitor interrupts
/// CPython only while one runs.
static INSIDE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The VM thread's VM while CPython runs for it: a callback into the sandbox finds it here.
    static VM: Cell<*const VirtualMachine> = const { Cell::new(std::ptr::null()) };
    /// The mirror class of each CPython class met, by the class's address (the class is held, so the address
    /// stays its own), and what its instances' value-type base holds.
    static MIRRORS: RefCell<HashMap<usize, Mirror>> = RefCell::new(HashMap::new());
    /// The sandbox end (`_sandbox_cpython`).
    static MACHINERY: RefCell<Option<PyObjectRef>> = const { RefCell::new(None) };
}

struct Mirror {
    _class: Py<PyType>,
    sandbox: PyObjectRef,
    value: Option<values::ValueBase>,
}

/// Whether this process has the CPython end (a package set's zygote with compiled packages, and its sessions).
pub fn active() -> bool {
    SIDE.get().is_some()
}

fn side(py: Python<'_>) -> &Bound<'_, PyModule> {
    SIDE.get().expect("the CPython end is prepared before the bridge is used").bind(py)
}

fn machinery(vm: &VirtualMachine) -> rustpython_vm::PyResult<PyObjectRef> {
    if let Some(module) = MACHINERY.with(|m| m.borrow().clone()) {
        return Ok(module);
    }
    let module = vm.import("_sandbox_cpython", 0)?;
    MACHINERY.with(|m| *m.borrow_mut() = Some(module.clone()));
    Ok(module)
}

/// Run `f` in CPython for the sandbox's `vm`: callbacks find the VM, and the monitor may interrupt.
fn enter<R>(vm: &VirtualMachine, f: impl FnOnce(Python<'_>) -> R) -> R {
    struct Restore(*const VirtualMachine);
    impl Drop for Restore {
        fn drop(&mut self) {
            INSIDE.fetch_sub(1, Ordering::SeqCst);
            VM.with(|cell| cell.set(self.0));
        }
    }
    let _restore = Restore(VM.with(|cell| cell.replace(vm as *const _)));
    INSIDE.fetch_add(1, Ordering::SeqCst);
    Python::attach(f)
}

/// The VM CPython runs for now (None outside a bridge call: nothing in the sandbox to call back).
fn current_vm<'a>() -> Option<&'a VirtualMachine> {
    let vm = VM.with(Cell::get);
    // SAFETY: set by `enter` from a live `&VirtualMachine` for exactly the span of the CPython call that calls
    // back, on this thread; reset when that call returns.
    (!vm.is_null()).then(|| unsafe { &*vm })
}

/// Ask CPython to stop what it runs for the sandbox (the run is past a limit): it raises KeyboardInterrupt at its
/// next check, which the bridge turns into the run's stop. Async-signal-safe, from any thread.
pub fn interrupt() {
    if active() && INSIDE.load(Ordering::SeqCst) > 0 {
        // SAFETY: documented as callable from any thread, without an attached thread state.
        unsafe { pyo3::ffi::PyErr_SetInterruptEx(libc::SIGINT) };
    }
}

/// Forget an interrupt that came after CPython returned (before a run starts: it belongs to the last one).
pub fn clear_interrupt() {
    if active() {
        // SAFETY: on the VM thread, which holds CPython's lock for the session's life.
        Python::attach(|_| unsafe { pyo3::ffi::PyOS_InterruptOccurred() });
    }
}
