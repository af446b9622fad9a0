//! `time.sleep` under the time limit: the sandbox's sleeps in slices and returns early when the run is asked to
//! stop; an audit hook bounds the VM's own `time.sleep` should code re-import it.

use std::time::{Duration, Instant};

use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

use crate::sandbox::vm::limits::{job_started, shared};

/// Put the sleep in `time` and the hook in `sys` (the zygote does it once).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    vm.import("time", 0)?.set_attr("sleep", vm.new_function("sleep", sleep), vm)?;
    let hook = vm.new_function("sandbox_audit", audit);
    vm.sys_module.get_attr("addaudithook", vm)?.call((hook,), vm)?;
    Ok(())
}

fn seconds_arg(value: &PyObjectRef, vm: &VirtualMachine, func: &str) -> PyResult<f64> {
    let seconds: f64 = value
        .try_float(vm)
        .map_err(|_| vm.new_type_error(format!("{func}() takes a number of seconds, got {}", value.class().name())))?
        .to_f64();
    if seconds.is_nan() || seconds < 0.0 {
        return Err(vm.new_value_error("sleep length must be non-negative"));
    }
    Ok(seconds)
}

/// `time.sleep` in slices, returning early when the run is asked to stop (the stop then raises).
fn sleep(seconds: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    let seconds = seconds_arg(&seconds, vm, "sleep")?;
    let Some(shared) = shared() else { return Ok(()) };
    let deadline = Instant::now() + Duration::from_secs_f64(seconds.min(1e9));
    while shared.stopping().is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(5)));
    }
    Ok(())
}

/// Bounds the VM's own `time.sleep` (reachable again if code deletes and re-imports `time`): a sleep longer
/// than the time left is refused at once.
fn audit(event: rustpython_vm::builtins::PyStrRef, args: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    if event.as_bytes() != b"time.sleep" {
        return Ok(());
    }
    let Some(shared) = shared() else { return Ok(()) };
    let Some(timeout) = shared.options.timeout() else { return Ok(()) };
    let requested = args
        .downcast_ref::<rustpython_vm::builtins::PyTuple>()
        .and_then(|t| t.as_slice().first().cloned())
        .map(|s| seconds_arg(&s, vm, "sleep"))
        .transpose()?
        .unwrap_or(0.0);
    let started = job_started().unwrap_or_else(Instant::now);
    let used = started.elapsed().saturating_sub(shared.tool_time());
    let left = timeout.saturating_sub(used).as_secs_f64();
    if requested > left {
        return Err(vm.new_exception_msg(
            vm.ctx.exceptions.timeout_error.to_owned(),
            format!("time.sleep({requested}) would run past the time limit ({left:.3} s left)").into(),
        ));
    }
    Ok(())
}
