//! Native functions of the standard library that take an argument differently from CPython, wrapped so that
//! the argument reaches them as CPython would pass it:
//! - `_bisect`'s functions: `hi=-1` means "to the end", as in CPython's C implementation (RustPython searches
//!   an empty range);
//! - `list.index` and `list.remove`: a value that is not there is named as CPython names it (`3 is not in
//!   list`, `list.remove(x): x not in list`; RustPython quotes the value's str: `'3' is not in list`).
//! - `math.cbrt`: the C library's `cbrt`, which CPython calls (RustPython's own rounds differently:
//!   its `cbrt(27)` is `3.0` where CPython gives `3.0000000000000004`).
//! - `math.log(x, 1)`: a division by `log(1)`, so CPython's `ZeroDivisionError` (RustPython: "math domain error").
//! - `logging`'s package path: `Handler.handleError` skips its own frames by comparing their folder with
//!   `__path__[0]`, and the frozen package's `__path__` is empty, so a log call with arguments that do not fit
//!   its format (`logging.info("rows", n)`, common in models' code) would raise IndexError out of the cell
//!   where CPython prints "--- Logging error ---" and goes on. Frozen code's file names have no folder: `[""]`.

use crate::sandbox::library::method::fast_method;
use rustpython_vm::builtins::PyInt;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

/// Wrap them (the zygote does it once, before sandbox code or `bisect` imports them).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    if let Some(c_cbrt) = c_library_cbrt() {
        let cbrt = vm.new_function("cbrt", move |x: rustpython_vm::function::ArgIntoFloat| -> f64 {
            // SAFETY: the C library's cbrt, a pure function of a float.
            unsafe { c_cbrt(x.into_float()) }
        });
        vm.import("math", 0)?.set_attr("cbrt", cbrt, vm)?;
    }
    let math = vm.import("math", 0)?;
    let log = math.get_attr("log", vm)?;
    let wrapped_log = vm.new_function("log", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let base_is_one =
            args.args.get(1).is_some_and(|base| base.try_float(vm).is_ok_and(|base| base.to_f64() == 1.0));
        let first = args.args.first().cloned();
        log.call(args, vm).map_err(|error| {
            let positive = first.is_some_and(|x| x.try_float(vm).is_ok_and(|x| x.to_f64() > 0.0));
            if base_is_one && positive && error.class().is(vm.ctx.exceptions.value_error) {
                vm.new_zero_division_error("division by zero")
            } else {
                error
            }
        })
    });
    math.set_attr("log", wrapped_log, vm)?;
    let bisect = vm.import("_bisect", 0)?;
    for name in ["bisect_left", "bisect_right", "insort_left", "insort_right"] {
        let original = bisect.get_attr(name, vm)?;
        let wrapped = vm.new_function(name, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            original.call(hi_to_the_end(args, vm), vm)
        });
        bisect.set_attr(name, wrapped, vm)?;
    }
    let list = vm.ctx.types.list_type;
    for name in ["index", "remove"] {
        let name = vm.ctx.intern_str(name);
        let original = list.as_object().get_attr(name, vm)?;
        let wrapped = fast_method(vm, name.as_str(), list, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let value = args.args.get(1).cloned();
            original.call(args, vm).map_err(|error| not_in_list(vm, name.as_str(), value, error))
        });
        list.set_attr(name, wrapped.into());
    }
    Ok(())
}

/// What needs the sandbox's own modules in place first (`sandbox::prepare` calls it after the files layer):
/// importing `logging` imports `io`, `os` and `threading`, which must be the sandbox's.
pub fn install_after_files(vm: &VirtualMachine) -> PyResult<()> {
    vm.import("logging", 0)?.set_attr("__path__", vm.ctx.new_list(vec![vm.ctx.new_str("").into()]), vm)
}

/// The C library's `cbrt`, as the process resolves it (the Python executable's libm): a `cbrt` named in this
/// crate would bind to the pure-Rust port the Rust toolchain bundles, which rounds as RustPython does.
fn c_library_cbrt() -> Option<unsafe extern "C" fn(f64) -> f64> {
    // SAFETY: dlsym with a NUL-terminated name; the symbol, when found, is libm's `double cbrt(double)`.
    let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"cbrt".as_ptr()) };
    // SAFETY: as above: a function of that signature.
    (!symbol.is_null())
        .then(|| unsafe { std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn(f64) -> f64>(symbol) })
}

/// RustPython's "... is not in list" from `list.index` or `list.remove`, in CPython's words.
fn not_in_list(
    vm: &VirtualMachine,
    method: &str,
    value: Option<PyObjectRef>,
    error: rustpython_vm::builtins::PyBaseExceptionRef,
) -> rustpython_vm::builtins::PyBaseExceptionRef {
    let ours = error.class().is(vm.ctx.exceptions.value_error)
        && crate::sandbox::vm::wording::message_of(&error).is_some_and(|message| message.ends_with(" is not in list"));
    let (true, Some(value)) = (ours, value) else { return error };
    let message = if method == "remove" {
        "list.remove(x): x not in list".to_owned()
    } else {
        match value.repr(vm) {
            Ok(repr) => format!("{} is not in list", repr.as_wtf8()),
            Err(_) => return error,
        }
    };
    vm.new_value_error(message)
}

fn is_int(value: &PyObjectRef, wanted: i64) -> bool {
    value.downcast_ref::<PyInt>().and_then(|int| i64::try_from(int.as_bigint()).ok()) == Some(wanted)
}

/// `(a, x, lo, hi)`: `hi` given as -1 becomes None.
fn hi_to_the_end(mut args: FuncArgs, vm: &VirtualMachine) -> FuncArgs {
    if let Some(hi) = args.args.get_mut(3).filter(|hi| is_int(hi, -1)) {
        *hi = vm.ctx.none();
    }
    for (name, hi) in args.kwargs.iter_mut() {
        if **name == *"hi" && is_int(hi, -1) {
            *hi = vm.ctx.none();
        }
    }
    args
}
