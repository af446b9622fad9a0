//! A dict key that cannot be hashed, in CPython 3.14's words: `cannot use 'list' as a dict key (unhashable type:
//! 'list')` (sets say `as a set element`: `set.rs`). RustPython hashes keys inside its dict, where the error is
//! `hash()`'s; CPython rewords a hash's TypeError wherever a dict takes a key. Here: the dict's subscript,
//! assignment and `in` slots and its methods that take a key, so `d[k]`, `d[k] = v`, `del d[k]`, `k in d`,
//! `d.get(k)`, `d.pop(k)`, `d.setdefault(k)` say it. Not reworded: a dict display's key (`{[]: 1}` builds the dict
//! inside the VM) and an instruction the VM specialised for dicts after a loop warmed it up with hashable keys.

use std::sync::OnceLock;

use rustpython_vm::builtins::{PyBaseExceptionRef, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::protocol::{PyMapping, PySequence};
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyResult, VirtualMachine};

use crate::sandbox::library::method::fast_method;

type Subscript = fn(PyMapping<'_>, &PyObject, &VirtualMachine) -> PyResult;
type AssSubscript = fn(PyMapping<'_>, &PyObject, Option<PyObjectRef>, &VirtualMachine) -> PyResult<()>;
type Contains = fn(PySequence<'_>, &PyObject, &VirtualMachine) -> PyResult<bool>;

static SUBSCRIPT: OnceLock<Subscript> = OnceLock::new();
static ASS_SUBSCRIPT: OnceLock<AssSubscript> = OnceLock::new();
static CONTAINS: OnceLock<Contains> = OnceLock::new();

/// Reword the dict's (the zygote does it once, before any subclass of dict is made by sandbox code).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let dict: &'static Py<PyType> = vm.ctx.types.dict_type;
    if let Some(original) = dict.slots.as_mapping.subscript.load() {
        let _ = SUBSCRIPT.set(original);
        dict.slots.as_mapping.subscript.store(Some(subscript));
    }
    if let Some(original) = dict.slots.as_mapping.ass_subscript.load() {
        let _ = ASS_SUBSCRIPT.set(original);
        dict.slots.as_mapping.ass_subscript.store(Some(ass_subscript));
    }
    if let Some(original) = dict.slots.as_sequence.contains.load() {
        let _ = CONTAINS.set(original);
        dict.slots.as_sequence.contains.store(Some(contains));
    }
    for name in ["get", "pop", "setdefault", "__contains__", "__getitem__", "__setitem__", "__delitem__"] {
        let name = vm.ctx.intern_str(name);
        let original = dict.as_object().get_attr(name, vm)?;
        let wrapped = fast_method(vm, name.as_str(), dict, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let key = args.args.get(1).cloned();
            original.call(args, vm).map_err(|error| match &key {
                Some(key) => as_dict_key(vm, key, error),
                None => error,
            })
        });
        dict.set_attr(name, wrapped.into());
    }
    Ok(())
}

fn subscript(mapping: PyMapping<'_>, key: &PyObject, vm: &VirtualMachine) -> PyResult {
    let original = SUBSCRIPT.get().expect("set when installed");
    original(mapping, key, vm).map_err(|error| as_dict_key(vm, key, error))
}

fn ass_subscript(
    mapping: PyMapping<'_>,
    key: &PyObject,
    value: Option<PyObjectRef>,
    vm: &VirtualMachine,
) -> PyResult<()> {
    let original = ASS_SUBSCRIPT.get().expect("set when installed");
    original(mapping, key, value, vm).map_err(|error| as_dict_key(vm, key, error))
}

fn contains(sequence: PySequence<'_>, key: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
    let original = CONTAINS.get().expect("set when installed");
    original(sequence, key, vm).map_err(|error| as_dict_key(vm, key, error))
}

/// `error`, a TypeError that hashing `key` raised, as CPython words it for a dict's key; any other as it is.
pub fn as_dict_key(vm: &VirtualMachine, key: &PyObject, error: PyBaseExceptionRef) -> PyBaseExceptionRef {
    if !error.class().is(vm.ctx.exceptions.type_error) || key.hash(vm).is_ok() {
        return error;
    }
    let Ok(reason) = error.as_object().str(vm) else { return error };
    if reason.as_wtf8().to_string().starts_with("cannot use ") {
        return error;
    }
    let type_name = key.class().name().to_string();
    vm.new_type_error(format!("cannot use '{type_name}' as a dict key ({})", reason.as_wtf8()))
}
