//! Automatic garbage collection at the VM's safe points. RustPython without threads collects inline, at the
//! allocation that passes the youngest generation's threshold: finalizers (`__del__`, weakref callbacks) then run in
//! the middle of whatever native operation allocated, with its locks held, and one that touches the same object (a
//! list being extended, a bytearray `_sre` is reading) panics on the lock and ends the session process. CPython's
//! operations are written for that; RustPython's are not. So the VM's own threshold stays 0 (it never collects
//! inline), the sandbox's `gc` keeps the threshold the code sets, and the monitor asks for the collection the VM
//! would have made (the youngest generation) at the next safe point between bytecodes once the count passes it.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

use rustpython_vm::function::OptionalArg;
use rustpython_vm::gc_state::GcState;
use rustpython_vm::signal::UserSignalSender;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

/// The youngest generation's threshold as the code sees it (`gc.get_threshold()[0]`); 0: no automatic collection.
static THRESHOLD: AtomicU32 = AtomicU32::new(0);
/// A collection is asked for and has not run yet.
static REQUESTED: AtomicBool = AtomicBool::new(false);
/// The VM thread's collector state (RustPython keeps one per thread without threads), whose counts the monitor
/// reads.
static COUNTED: AtomicPtr<GcState> = AtomicPtr::new(std::ptr::null_mut());

/// Take the threshold from the VM and put the sandbox's `gc.set_threshold` and `gc.get_threshold` in place of
/// RustPython's (once, in the zygote: every session inherits them).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    COUNTED.store(rustpython_vm::gc_state::gc_state() as *const GcState as *mut GcState, Ordering::Release);
    let gc = &vm.state.gc;
    let (first, second, third) = gc.get_threshold();
    THRESHOLD.store(first, Ordering::Relaxed);
    gc.set_threshold(0, Some(second), Some(third));
    let module = vm.import("gc", 0)?;
    let set = vm.new_function(
        "set_threshold",
        |first: u32, second: OptionalArg<u32>, third: OptionalArg<u32>, vm: &VirtualMachine| {
            THRESHOLD.store(first, Ordering::Relaxed);
            vm.state.gc.set_threshold(0, second.into_option(), third.into_option());
        },
    );
    let get = vm.new_function("get_threshold", |vm: &VirtualMachine| -> PyObjectRef {
        let (_, second, third) = vm.state.gc.get_threshold();
        let first = THRESHOLD.load(Ordering::Relaxed);
        vm.ctx
            .new_tuple(vec![vm.ctx.new_int(first).into(), vm.ctx.new_int(second).into(), vm.ctx.new_int(third).into()])
            .into()
    });
    module.set_attr("set_threshold", set, vm)?;
    module.set_attr("get_threshold", get, vm)?;
    Ok(())
}

/// Called by the monitor while code runs: ask for a collection at the next safe point when the youngest
/// generation's count passed the threshold (and none is asked for already).
pub fn request_when_due(signals: &UserSignalSender) {
    let threshold = THRESHOLD.load(Ordering::Relaxed);
    // SAFETY: the VM thread's state, which lives as long as the process (the thread does); only its counts,
    // atomics, are read.
    let Some(counted) = (unsafe { COUNTED.load(Ordering::Acquire).as_ref() }) else { return };
    if threshold == 0 || (counted.get_count().0 as u64) < threshold as u64 {
        return;
    }
    if REQUESTED.swap(true, Ordering::AcqRel) {
        return;
    }
    let _ = signals.send(Box::new(|vm: &VirtualMachine| {
        REQUESTED.store(false, Ordering::Release);
        // `collect` (not `collect_force`): nothing while the code has disabled collection, as CPython.
        vm.state.gc.collect(0);
        Ok(())
    }));
}
