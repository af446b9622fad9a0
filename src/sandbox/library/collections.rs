//! `collections._count_elements(mapping, iterable)`, the loop `Counter(...)` and `Counter.update` run, in
//! native code as CPython's `_collections` has it. RustPython has no `_collections._count_elements`, so
//! `collections` would fall back to its Python loop, which makes `Counter(text.split())` several times slower.
//! Same semantics: for each element, `mapping[elem] = mapping.get(elem, 0) + 1`; a dict (or subclass, such as
//! `Counter`) that keeps dict's `get` and `__setitem__` is updated directly, any other mapping through its
//! own methods. A list or tuple of strs counted into a dict of exact strs and exact ints (a new `Counter`,
//! or one that only ever counted strs) is counted by text first (`distinct_strs`), then each count added
//! once: no code of the user's can tell the difference there (an int subclass's `__add__` or a key with its
//! own `__eq__` would see the calls in another order and number, so they keep the loop).

use rustpython_vm::builtins::{PyDict, PyInt, PyStr};
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::{AsObject, Py, PyObjectRef, PyResult, VirtualMachine};

use super::set::{distinct_strs, sequence_len, Distinct};

/// How many elements between checks for a stop (the time limit, an interrupt).
const CHECK_EVERY: usize = 4096;

/// How one element is counted into the mapping.
enum Counting<'a> {
    /// A dict (or subclass) that keeps dict's `get` and `__setitem__`: its entries themselves, as CPython's
    /// fast path does (a subclass's `__missing__`, Counter's, is not how `get` answers).
    Entries(&'a Py<PyDict>),
    /// Any other mapping: its own `get` (kept) and `__setitem__`.
    Methods(PyObjectRef),
}

fn count_elements(mapping: PyObjectRef, iterable: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    let one: PyObjectRef = vm.ctx.new_int(1).into();
    let zero: PyObjectRef = vm.ctx.new_int(0).into();
    let counting = match mapping.downcast_ref::<PyDict>().filter(|_| keeps_dict_methods(&mapping, vm)) {
        Some(dict) => Counting::Entries(dict),
        None => Counting::Methods(mapping.get_attr("get", vm)?),
    };
    if let (Counting::Entries(dict), Some(items)) = (&counting, sequence_len(&iterable, vm)) {
        // The dict is checked whole only when it holds no more than the items (`sequence_len`).
        if dict.__len__() <= items && plain_counts(dict, vm) {
            if let Some(distinct) = distinct_strs(&iterable, vm) {
                return add_counts(dict, distinct?, vm);
            }
        }
    }
    let iterator = iterable.get_iter(vm)?;
    let mut seen = 0usize;
    loop {
        let element = match iterator.next(vm)? {
            PyIterReturn::Return(element) => element,
            PyIterReturn::StopIteration(_) => return Ok(()),
        };
        seen += 1;
        if seen.is_multiple_of(CHECK_EVERY) {
            vm.check_signals()?;
        }
        match &counting {
            Counting::Entries(dict) => {
                let count = match dict.inner_getitem_opt(&*element, vm)? {
                    Some(old) => vm._add(&old, &one)?,
                    None => one.clone(),
                };
                dict.inner_setitem(&*element, count, vm)?;
            }
            Counting::Methods(get) => {
                let old = get.call((element.clone(), zero.clone()), vm)?;
                let count = vm._add(&old, &one)?;
                mapping.set_item(&*element, count, vm)?;
            }
        }
    }
}

/// Whether the dict holds only exact str keys with exact int counts (checked once per call).
fn plain_counts(dict: &Py<PyDict>, vm: &VirtualMachine) -> bool {
    dict.into_iter().all(|(key, count)| {
        key.downcast_ref_if_exact::<PyStr>(vm).is_some() && count.downcast_ref_if_exact::<PyInt>(vm).is_some()
    })
}

/// The counts of a list of strs, told apart natively (`distinct_strs`), added to a dict of exact str keys and
/// exact int counts (`plain_counts`): each text's entry read and written once, in the order of its first
/// occurrence, gaining its count in one addition (the same int as one at a time).
fn add_counts(dict: &PyDict, distinct: Vec<Distinct>, vm: &VirtualMachine) -> PyResult<()> {
    for Distinct { first, count } in distinct {
        let count: PyObjectRef = vm.ctx.new_int(count).into();
        let total = match dict.inner_getitem_opt(&*first, vm)? {
            None => count,
            Some(old) => vm._add(&old, &count)?,
        };
        dict.inner_setitem(&*first, total, vm)?;
    }
    Ok(())
}

/// Whether `mapping`'s class uses dict's own `get` and `__setitem__` (CPython's fast-path test).
fn keeps_dict_methods(mapping: &PyObjectRef, vm: &VirtualMachine) -> bool {
    let class = mapping.class();
    let dict_type = vm.ctx.types.dict_type;
    ["get", "__setitem__"].iter().all(|name| {
        let name = vm.ctx.intern_str(*name);
        match (class.get_attr(name), dict_type.get_attr(name)) {
            (Some(own), Some(dicts)) => own.is(&dicts),
            _ => false,
        }
    })
}

/// Put it where `Counter` looks for it (the zygote does it once; `collections` is imported here).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let function = vm.new_function("_count_elements", count_elements);
    vm.import("_collections", 0)?.set_attr("_count_elements", function.clone(), vm)?;
    vm.import("collections", 0)?.set_attr("_count_elements", function, vm)
}
