//! Clamps on what sandbox code may set in `sys`: the recursion limit (deeper Python recursion needs more native
//! stack than the VM thread has) and the size of int/str conversions, set again before every run whatever code
//! did to get around them.

use rustpython_vm::function::FuncArgs;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

/// Highest recursion limit sandbox code may set: deeper Python recursion would need more native stack.
pub const MAX_RECURSION_LIMIT: usize = 10_000;
/// int <-> str conversions longer than this many digits are refused (CPython's default is 4300); code may
/// lower it or raise it up to this bound, never lift it.
pub const MAX_INT_STR_DIGITS: usize = 100_000;

/// Put the clamped setters in `sys` (the zygote does it once).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let sys = &vm.sys_module;
    sys.set_attr("setrecursionlimit", vm.new_function("setrecursionlimit", set_recursion_limit), vm)?;
    sys.set_attr("set_int_max_str_digits", vm.new_function("set_int_max_str_digits", set_int_max_str_digits), vm)
}

/// Re-apply the clamps before each run, whatever code did to get around them.
pub fn enforce(vm: &VirtualMachine) {
    if vm.recursion_limit.get() > MAX_RECURSION_LIMIT {
        vm.recursion_limit.set(MAX_RECURSION_LIMIT);
    }
    let digits = vm.state.int_max_str_digits.load();
    if digits == 0 || digits > MAX_INT_STR_DIGITS {
        vm.state.int_max_str_digits.store(MAX_INT_STR_DIGITS);
    }
}

fn set_recursion_limit(limit: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    let limit: isize = limit.try_into_value(vm)?;
    if limit < 1 {
        return Err(vm.new_value_error("recursion limit must be greater than or equal to one"));
    }
    let limit = (limit as usize).min(MAX_RECURSION_LIMIT);
    let depth = vm.current_recursion_depth();
    if limit <= depth {
        return Err(vm.new_recursion_error(format!(
            "cannot set the recursion limit to {limit} at the recursion depth {depth}: the limit is too low"
        )));
    }
    vm.recursion_limit.set(limit);
    Ok(())
}

fn set_int_max_str_digits(args: FuncArgs, vm: &VirtualMachine) -> PyResult<()> {
    let value = args
        .args
        .first()
        .or_else(|| args.kwargs.get("maxdigits"))
        .ok_or_else(|| vm.new_type_error("set_int_max_str_digits() missing argument 'maxdigits'"))?;
    let digits: isize = value.clone().try_into_value(vm)?;
    const THRESHOLD: isize = 640;
    if digits != 0 && digits < THRESHOLD {
        return Err(vm.new_value_error(format!("maxdigits must be 0 or larger than {THRESHOLD}")));
    }
    let digits = if digits == 0 { MAX_INT_STR_DIGITS } else { (digits as usize).min(MAX_INT_STR_DIGITS) };
    vm.state.int_max_str_digits.store(digits);
    Ok(())
}
