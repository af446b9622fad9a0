//! Native functions of the standard library that take an argument differently from CPython, wrapped so that
//! the argument reaches them as CPython would pass it:
//! - `_bisect`'s functions: `hi=-1` means "to the end", as in CPython's C implementation (RustPython searches
//!   an empty range);
//! - a value that is not there, in CPython 3.14's words: `list.index(x): x not in list`, `range.index(x): x not in
//!   range`, `deque.index(x): x not in deque`, `subsection not found` for bytes (RustPython names the value, or
//!   says "substring"), one table in `install`;
//! - `struct`'s packing functions: a wrong number of values names the format's count of items (RustPython counts
//!   its codes: `pack expected 1 items for packing (got 1)` for `"<2i"`), and `pack_into` says so;
//! - `bytes + str` (and bytearray's): `can't concat str to bytes`, as CPython words it (RustPython: `a bytes-like
//!   object is required, not 'str'`);
//! - `array`'s repr: its items' reprs, as CPython shows them (`array('d', [-3.0])`; RustPython: `-3`);
//! - `math.cbrt`: the C library's `cbrt`, which CPython calls (RustPython's own rounds differently:
//!   its `cbrt(27)` is `3.0` where CPython gives `3.0000000000000004`).
//! - `math.log(x, 1)`: a division by `log(1)`, so CPython's `ZeroDivisionError` (RustPython: "math domain error").
//! - `logging`'s package path: `Handler.handleError` skips its own frames by comparing their folder with
//!   `__path__[0]`, and the frozen package's `__path__` is empty, so a log call with arguments that do not fit
//!   its format (`logging.info("rows", n)`, common in models' code) would raise IndexError out of the cell
//!   where CPython prints "--- Logging error ---" and goes on. Frozen code's file names have no folder: `[""]`.

use crate::sandbox::library::method::{fast_method, module_class};
use rustpython_vm::buffer::FormatSpec;
use rustpython_vm::builtins::{PyBaseExceptionRef, PyBytes, PyInt, PyStr, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

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
    let deque = module_class(vm, "_collections", "deque")?;
    let types = &vm.ctx.types;
    let misses: [(&'static Py<PyType>, &'static str, &'static str, &'static str); 9] = [
        (types.list_type, "index", " is not in list", "list.index(x): x not in list"),
        (types.list_type, "remove", " is not in list", "list.remove(x): x not in list"),
        (types.range_type, "index", " is not in range", "range.index(x): x not in range"),
        (deque, "index", " is not in deque", "deque.index(x): x not in deque"),
        (deque, "remove", " is not in deque", "deque.remove(x): x not in deque"),
        (types.bytes_type, "index", "substring not found", "subsection not found"),
        (types.bytes_type, "rindex", "substring not found", "subsection not found"),
        (types.bytearray_type, "index", "substring not found", "subsection not found"),
        (types.bytearray_type, "rindex", "substring not found", "subsection not found"),
    ];
    for (class, name, theirs, ours) in misses {
        let name = vm.ctx.intern_str(name);
        let original = class.as_object().get_attr(name, vm)?;
        let wrapped = fast_method(vm, name.as_str(), class, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            original.call(args, vm).map_err(|error| missed(vm, error, theirs, ours))
        });
        class.set_attr(name, wrapped.into());
    }
    struct_counts(vm)?;
    concat_words(vm);
    let array = module_class(vm, "array", "array")?;
    array.slots.repr.store(Some(array_repr));
    let method = vm.new_method("__repr__", array, |zelf: PyObjectRef, vm: &VirtualMachine| array_repr(&zelf, vm));
    array.set_attr(vm.ctx.intern_str("__repr__"), method.into());
    Ok(())
}

/// What needs the sandbox's own modules in place first (`sandbox::prepare` calls it after the files layer):
/// importing `logging` imports `io`, `os` and `threading`, which must be the sandbox's.
pub fn install_after_files(vm: &VirtualMachine) -> PyResult<()> {
    json_escape_words(vm)?;
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

/// `json`'s error for a bad escape in the words of CPython's scanner, `Invalid \escape` (RustPython's names the
/// character: `Invalid \escape: U+0078`).
fn json_escape_words(vm: &VirtualMachine) -> PyResult<()> {
    let class = module_class(vm, "json", "JSONDecodeError")?;
    let init = class.as_object().get_attr("__init__", vm)?;
    let wrapped = vm.new_method("__init__", class, move |mut args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let bad_escape = args
            .args
            .get(1)
            .and_then(|message| message.downcast_ref::<PyStr>().and_then(|m| m.to_str().map(str::to_owned)))
            .filter(|message| message.starts_with("Invalid \\escape: U+"));
        if bad_escape.is_some() {
            args.args[1] = vm.ctx.new_str("Invalid \\escape").into();
        }
        init.call(args, vm)
    });
    class.set_attr(vm.ctx.intern_str("__init__"), wrapped.into());
    Ok(())
}

type Concat = fn(rustpython_vm::protocol::PySequence<'_>, &PyObject, &VirtualMachine) -> PyResult;

static BYTES_CONCAT: std::sync::OnceLock<Concat> = std::sync::OnceLock::new();
static BYTEARRAY_CONCAT: std::sync::OnceLock<Concat> = std::sync::OnceLock::new();

/// `bytes + x` and `bytearray + x` with what cannot be concatenated, in CPython's words.
fn concat_words(vm: &VirtualMachine) {
    let types = &vm.ctx.types;
    if let Some(original) = types.bytes_type.slots.as_sequence.concat.load() {
        let _ = BYTES_CONCAT.set(original);
        types.bytes_type.slots.as_sequence.concat.store(Some(bytes_concat));
    }
    if let Some(original) = types.bytearray_type.slots.as_sequence.concat.load() {
        let _ = BYTEARRAY_CONCAT.set(original);
        types.bytearray_type.slots.as_sequence.concat.store(Some(bytearray_concat));
    }
}

fn bytes_concat(seq: rustpython_vm::protocol::PySequence<'_>, other: &PyObject, vm: &VirtualMachine) -> PyResult {
    let original = BYTES_CONCAT.get().expect("set when installed");
    original(seq, other, vm).map_err(|error| cannot_concat(vm, error, other, "bytes"))
}

fn bytearray_concat(seq: rustpython_vm::protocol::PySequence<'_>, other: &PyObject, vm: &VirtualMachine) -> PyResult {
    let original = BYTEARRAY_CONCAT.get().expect("set when installed");
    original(seq, other, vm).map_err(|error| cannot_concat(vm, error, other, "bytearray"))
}

/// RustPython's "a bytes-like object is required, not 'str'" for a concatenation, as `can't concat str to bytes`.
fn cannot_concat(vm: &VirtualMachine, error: PyBaseExceptionRef, other: &PyObject, to: &str) -> PyBaseExceptionRef {
    let ours = error.class().is(vm.ctx.exceptions.type_error)
        && crate::sandbox::vm::wording::message_of(&error)
            .is_some_and(|message| message.starts_with("a bytes-like object is required, not "));
    if !ours {
        return error;
    }
    vm.new_type_error(format!("can't concat {} to {to}", other.class().name()))
}

/// An array as CPython shows it: its items' reprs (`array('d', [-3.0])`; RustPython writes floats its own way,
/// `-3`), a unicode array's text, or the type code alone when it is empty.
fn array_repr(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyRef<PyStr>> {
    let class = zelf.class().name().to_string();
    let typecode = zelf.get_attr("typecode", vm)?.str(vm)?;
    let typecode = typecode.as_wtf8();
    if zelf.length(vm)? == 0 {
        return Ok(vm.ctx.new_str(format!("{class}('{typecode}')")));
    }
    let items = if typecode == "u" || typecode == "w" { "tounicode" } else { "tolist" };
    let items = vm.call_method(zelf, items, ())?.repr(vm)?;
    Ok(vm.ctx.new_str(format!("{class}('{typecode}', {})", items.as_wtf8())))
}

/// A miss RustPython words as `theirs` (the message's end), in CPython's words `ours`; any other error as it is.
fn missed(vm: &VirtualMachine, error: PyBaseExceptionRef, theirs: &str, ours: &str) -> PyBaseExceptionRef {
    let miss = error.class().is(vm.ctx.exceptions.value_error)
        && crate::sandbox::vm::wording::message_of(&error).is_some_and(|message| message.ends_with(theirs));
    if miss {
        vm.new_value_error(ours.to_owned())
    } else {
        error
    }
}

/// `struct`'s packing functions and methods, whose count of values in an error is the format's items.
fn struct_counts(vm: &VirtualMachine) -> PyResult<()> {
    let module = vm.import("_struct", 0)?;
    for (name, function) in [("pack", "pack"), ("pack_into", "pack_into")] {
        let original = module.get_attr(name, vm)?;
        let wrapped = vm.new_function(name, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let format = args.args.first().cloned();
            original.call(args, vm).map_err(|error| counted(vm, error, format, function))
        });
        module.set_attr(name, wrapped, vm)?;
    }
    let class = module_class(vm, "_struct", "Struct")?;
    for (name, function) in [("pack", "pack"), ("pack_into", "pack_into")] {
        let original = class.as_object().get_attr(name, vm)?;
        let wrapped = fast_method(vm, name, class, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let format = args.args.first().and_then(|this| this.get_attr("format", vm).ok());
            original.call(args, vm).map_err(|error| counted(vm, error, format, function))
        });
        class.set_attr(vm.ctx.intern_str(name), wrapped.into());
    }
    Ok(())
}

/// RustPython's "pack expected N items for packing (got M)", with N the items of `format` and the function's name.
fn counted(
    vm: &VirtualMachine,
    error: PyBaseExceptionRef,
    format: Option<PyObjectRef>,
    function: &str,
) -> PyBaseExceptionRef {
    let Some(message) = crate::sandbox::vm::wording::message_of(&error) else { return error };
    let Some(got) = message.strip_prefix("pack expected ").and_then(|rest| rest.split_once(" items for packing (got "))
    else {
        return error;
    };
    let format = format.and_then(|format| match format.downcast_ref::<PyStr>() {
        Some(text) => Some(text.as_bytes().to_vec()),
        None => format.downcast_ref::<PyBytes>().map(|bytes| bytes.as_bytes().to_vec()),
    });
    let Some(spec) = format.and_then(|format| FormatSpec::parse(&format, vm).ok()) else { return error };
    let text = format!("{function} expected {} items for packing (got {}", spec.arg_count, got.1);
    vm.new_exception(error.class().to_owned(), vec![vm.ctx.new_str(text).into()])
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
