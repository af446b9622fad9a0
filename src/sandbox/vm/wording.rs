//! CPython's wording for errors RustPython words its own way. The model reads these messages to repair its
//! code, and code it writes may print or compare them.
//!
//! Two places put it right, both outside RustPython:
//! - a native callable's arity and argument type errors name the callable as CPython does (`len() takes
//!   exactly one argument (0 given)`, `str.upper() takes no arguments (1 given)`, `replace() argument must be
//!   str, not int` for RustPython's `len expected 1 argument, got 0` and `Expected type 'str' but 'int'
//!   found.`): rewritten where the callable is known, in its guarded call slot (`native_recursion`), so
//!   `args` and every display of the exception agree;
//! - wording that needs no context (unbound locals, list concatenation, C type names, an argument that must be
//!   an int) is given by the `str` of the exception types concerned, so printing, `str()` and tracebacks show
//!   CPython's text.

use rustpython_vm::builtins::{PyBaseExceptionRef, PyModule, PyStr, PyStrRef, PyType};
use rustpython_vm::{AsObject, Py, PyObject, PyResult, VirtualMachine};

/// Give these exception types the `str` that rewords RustPython's messages (the zygote does it once).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let types = &vm.ctx.exceptions;
    for typ in [types.type_error, types.unbound_local_error, types.overflow_error, types.recursion_error] {
        typ.slots.str.store(Some(reworded_str));
        let method = vm.new_method("__str__", typ, |zelf: rustpython_vm::PyObjectRef, vm: &VirtualMachine| {
            reworded_str(&zelf, vm)
        });
        typ.set_attr(vm.ctx.intern_str("__str__"), method.into());
    }
    Ok(())
}

fn reworded_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
    let base = vm.ctx.exceptions.base_exception_type.as_object().get_attr("__str__", vm)?;
    let text = base.call((zelf.to_owned(),), vm)?.str(vm)?;
    let Some(message) = text.to_str() else { return Ok(text) };
    Ok(match reworded(zelf.class(), message, vm) {
        Some(reworded) => vm.ctx.new_str(reworded),
        None => text,
    })
}

/// CPython's words for `message`, a message of an exception of `class` (or a subclass), when they differ.
fn reworded(class: &Py<PyType>, message: &str, vm: &VirtualMachine) -> Option<String> {
    let types = &vm.ctx.exceptions;
    if class.fast_issubclass(types.unbound_local_error) {
        let name = message.strip_prefix("local variable ")?.strip_suffix(" referenced before assignment")?;
        return Some(format!("cannot access local variable {name} where it is not associated with a value"));
    }
    if class.fast_issubclass(types.recursion_error) {
        let trimmed = message.trim_end();
        return (trimmed.len() != message.len()).then(|| trimmed.to_owned());
    }
    if class.fast_issubclass(types.overflow_error) {
        let (start, rust_type) = message.rsplit_once(" to Rust ")?;
        let c_type = match rust_type {
            "isize" => "C ssize_t",
            "usize" => "C size_t",
            "i64" => "C long",
            "u64" => "C unsigned long",
            "i32" => "C int",
            "u32" => "C unsigned int",
            _ => return None,
        };
        return Some(format!("{start} to {c_type}"));
    }
    if class.fast_issubclass(types.type_error) {
        if let Some(other) = message.strip_prefix("Cannot add list and ") {
            return Some(format!("can only concatenate list (not \"{other}\") to list"));
        }
        // An argument that must be an int (CPython converts it with `__index__`).
        if let Some(other) =
            message.strip_prefix("Expected type 'int' but '").and_then(|rest| rest.strip_suffix("' found."))
        {
            return Some(format!("'{other}' object cannot be interpreted as an integer"));
        }
        if message.starts_with("exceptions must be classes or instances deriving from BaseException, not ") {
            return Some("exceptions must derive from BaseException".to_owned());
        }
        // RustPython leaves out the start, and lists the methods in its set's order (CPython sorts them).
        if let Some((class, methods)) =
            message.strip_prefix("class ").and_then(|rest| rest.split_once(" without an implementation for abstract "))
        {
            let (noun, names) = methods.split_once(' ')?;
            let mut names: Vec<&str> = names.strip_prefix('\'')?.strip_suffix('\'')?.split("', '").collect();
            names.sort_unstable();
            return Some(format!(
                "Can't instantiate abstract class {class} without an implementation for abstract {noun} '{}'",
                names.join("', '")
            ));
        }
        let other = message.strip_prefix("can only concatenate tuple (not '")?.strip_suffix("') to tuple")?;
        return Some(format!("can only concatenate tuple (not \"{other}\") to tuple"));
    }
    None
}

/// Callables that take one argument and word a wrong count as `name expected 1 argument, got N` in CPython
/// too (they parse their arguments themselves).
const COUNTED_LIKE_CPYTHON: &[&str] = &["sorted"];

/// `error`, raised by calling `callable` (a builtin function or a builtin method, bound or called through its
/// descriptor as `obj.method()` is), in CPython's words where RustPython's leave the callable out:
/// - arity: `f() takes no arguments (N given)`, `f() takes exactly one argument (N given)`;
/// - an argument of the wrong type (`Expected type 'str' but 'int' found.`): `f() argument must be str, not
///   int` (CPython also numbers the argument; which one it was is not known here);
/// - a str given to `hashlib` to hash: `Strings must be encoded before hashing`.
pub fn call_error(vm: &VirtualMachine, callable: &PyObject, error: PyBaseExceptionRef) -> PyBaseExceptionRef {
    let types = &vm.ctx.types;
    let class = callable.class();
    let native = [types.builtin_function_or_method_type, types.builtin_method_type, types.method_descriptor_type];
    if !error.class().is(vm.ctx.exceptions.type_error) || !native.iter().any(|native| class.is(*native)) {
        return error;
    }
    // Raised by Python code the callable ran (a key function, exec'd code): not about its own arguments.
    if error.traceback().is_some() {
        return error;
    }
    let Some(message) = message_of(&error) else { return error };
    let message = message.as_str();
    let reworded = if message == "a bytes-like object is required, not 'str'" && hashes(vm, callable) {
        // `hashlib.sha256("text")`, as models write it: CPython's message says what to do.
        "Strings must be encoded before hashing".to_owned()
    } else if let Some((name, counts)) = message.split_once(" expected ") {
        let takes = match counts.split_once(", got ") {
            Some(("0 arguments", given)) if given.parse::<usize>().is_ok() => {
                format!("takes no arguments ({given} given)")
            }
            Some(("1 argument", given)) if given.parse::<usize>().is_ok() && !COUNTED_LIKE_CPYTHON.contains(&name) => {
                format!("takes exactly one argument ({given} given)")
            }
            _ => return error,
        };
        let Some(qualified) = qualified_name(vm, callable, Some(name)) else { return error };
        format!("{qualified}() {takes}")
    } else if let Some((expected, found)) = message
        .strip_prefix("Expected type '")
        .and_then(|rest| rest.strip_suffix("' found."))
        .and_then(|rest| rest.split_once("' but '"))
    {
        if expected == "int" {
            return error; // worded by the TypeError's str (`'str' object cannot be interpreted as an integer`)
        }
        let Some(name) =
            qualified_name(vm, callable, None).map(|name| name.rsplit('.').next().unwrap_or_default().to_owned())
        else {
            return error;
        };
        format!("{name}() argument must be {expected}, not {found}")
    } else {
        return error;
    };
    // Setting `args` cannot fail on a TypeError; if it did, RustPython's words would stay.
    let _ = error.as_object().set_attr("args", vm.ctx.new_tuple(vec![vm.ctx.new_str(reworded).into()]), vm);
    error
}

/// Whether `callable` is one of `_hashlib`'s: a constructor (`openssl_sha256`, `new`) or a hash's `update`.
fn hashes(vm: &VirtualMachine, callable: &PyObject) -> bool {
    let module = callable.get_attr("__module__", vm).ok().and_then(|module| module.downcast::<PyStr>().ok());
    module.is_some_and(|module| module.as_wtf8() == "_hashlib")
        || qualified_name(vm, callable, None).is_some_and(|name| name.starts_with("HASH"))
}

/// The message of an exception made from one str, as RustPython's own are.
pub fn message_of(error: &PyBaseExceptionRef) -> Option<String> {
    let args = error.args();
    let [message] = args.as_slice() else { return None };
    message.downcast_ref::<PyStr>()?.to_str().map(str::to_owned)
}

/// The name CPython puts in the message: `len`, `list.append`, `math.sqrt` (a module's function, but not a
/// builtin's, carries the module's name); None when the callable is not the one `named` in the message.
fn qualified_name(vm: &VirtualMachine, callable: &PyObject, named: Option<&str>) -> Option<String> {
    let text = |attribute: &'static str| -> Option<String> {
        let value = callable.get_attr(attribute, vm).ok()?;
        value.downcast_ref::<PyStr>().and_then(|s| s.to_str()).map(str::to_owned)
    };
    if named.is_some_and(|named| text("__name__").as_deref() != Some(named)) {
        return None;
    }
    let qualified = text("__qualname__")?;
    let owner = callable.get_attr("__self__", vm).ok();
    match owner.as_ref().and_then(|owner| owner.downcast_ref::<PyModule>()) {
        Some(module) => {
            let module = module.as_object().get_attr("__name__", vm).ok()?;
            let module = module.downcast_ref::<PyStr>()?.to_str()?.to_owned();
            Some(if module == "builtins" { qualified } else { format!("{module}.{qualified}") })
        }
        None => Some(qualified),
    }
}
