//! `collections._count_elements(mapping, iterable)`, the loop `Counter(...)` and `Counter.update` run, in
//! native code as CPython's `_collections` has it. RustPython has no `_collections._count_elements`, so
//! `collections` fell back to its Python loop: `Counter(text.split())` ran at a third of CPython's speed (issue 30).
//! Same semantics: for each element, `mapping[elem] = mapping.get(elem, 0) + 1`; a dict (or subclass, such as
//! `Counter`) that keeps dict's `get` and `__setitem__` is updated directly, any other mapping through its
//! own methods. A list or tuple of strs is counted by text first (`distinct_strs`), then each count added
//! once.

use rustpython_vm::builtins::PyDict;

use super::distinct_strs::{distinct_strs, Distinct};
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

/// How many elements between checks for a stop (the time limit, an interrupt).
const CHECK_EVERY: usize = 4096;

/// How one element is counted into the mapping.
enum Counting<'a> {
    /// A dict (or subclass) that keeps dict's `get` and `__setitem__`: its entries themselves, as CPython's
    /// fast path does (a subclass's `__missing__`, Counter's, is not how `get` answers).
    Entries(&'a PyDict),
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
    if let (Counting::Entries(dict), Some(distinct)) = (&counting, distinct_strs(&iterable, vm)) {
        return add_counts(dict, distinct?, &one, vm);
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

/// The counts of a list of strs, told apart natively (`distinct_strs`), added to the dict's: each text's
/// entry is read and written once, in the order of its first occurrence, as the loop first wrote it. An exact
/// int count gains them in one addition (the same int as one at a time); any other value (a float, a bool,
/// an object with its own `__add__`) is added to one at a time, as the loop would.
fn add_counts(dict: &PyDict, distinct: Vec<Distinct>, one: &PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    for Distinct { first, count } in distinct {
        let total = match dict.inner_getitem_opt(&*first, vm)? {
            None => vm.ctx.new_int(count).into(),
            Some(old) if old.class().is(vm.ctx.types.int_type) => vm._add(&old, vm.ctx.new_int(count).as_object())?,
            Some(mut total) => {
                for _ in 0..count {
                    total = vm._add(&total, one)?;
                }
                total
            }
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
