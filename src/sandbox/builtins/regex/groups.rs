//! `Match` groups asked for by name (`m.group('id')`, `m['id']`): the name is turned into its number here,
//! from the pattern's `groupindex`, before RustPython's `m[group]` runs. Its `get_index` tries every group as
//! an integer first, so a name made and dropped a TypeError on each call: `m.group('id')` over the 114,000
//! matches of a 10 MB log took 92 ms, by number 27 (CPython: 15 by name). A name the pattern does not have is
//! passed on as it is, so the error is RustPython's ("no such group").
//!
//! `group` is answered through the type's subscript slot (`m.group(g)` is `m[g]`; no group is group 0; several
//! make a tuple), a plain function call: wrapping RustPython's `group` method instead cost a second method
//! call, ~110 ns on every `m.group(1)`. `start`, `end` and `span` by name keep RustPython's path.

use std::sync::OnceLock;

use rustpython_vm::builtins::{PyStr, PyStrInterned, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::protocol::PyMapping;
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, TryFromObject, VirtualMachine};

use super::compiled;

type Subscript = fn(PyMapping<'_>, &PyObject, &VirtualMachine) -> PyResult;

/// RustPython's own `m[group]`, which is given the number.
static OWN_SUBSCRIPT: OnceLock<Subscript> = OnceLock::new();

/// The number of the group `name` names in `found`'s pattern, when `name` is a `str` and the pattern is one
/// whose program is registered (every `str` pattern).
fn number(found: &PyObject, name: &PyObject, vm: &VirtualMachine) -> Option<PyObjectRef> {
    let name = name.downcast_ref_if_exact::<PyStr>(vm)?;
    thread_local! {
        /// `"re"`, interned once (looking the name up in the pool on every call was ~3 % of a `finditer`).
        static RE: std::cell::Cell<Option<&'static PyStrInterned>> = const { std::cell::Cell::new(None) };
    }
    let re = RE.with(|re| {
        re.get().unwrap_or_else(|| {
            let name = vm.ctx.intern_str("re");
            re.set(Some(name));
            name
        })
    });
    let pattern = found.get_attr(re, vm).ok()?;
    let groupindex = compiled(&pattern)?.groupindex.clone()?;
    groupindex.get_item(name.as_object(), vm).ok()
}

/// `found[group]` by RustPython's own subscript, a name given as its number. `found` must be a `Match`.
fn own_group(own: Subscript, found: &PyObject, group: &PyObject, vm: &VirtualMachine) -> PyResult {
    match number(found, group, vm) {
        Some(number) => own(PyMapping { obj: found }, &number, vm),
        None => own(PyMapping { obj: found }, group, vm),
    }
}

fn subscript(mapping: PyMapping<'_>, group: &PyObject, vm: &VirtualMachine) -> PyResult {
    let own = *OWN_SUBSCRIPT.get().expect("set before the slot is replaced");
    own_group(own, mapping.obj, group, vm)
}

/// Replace `group` and the subscript of `_sre.Match` (the zygote does it once).
pub fn install(sre: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
    let match_type: PyRef<PyType> = PyRef::try_from_object(vm, sre.get_attr("Match", vm)?)?;
    let match_type: &'static Py<PyType> = PyRef::leak(match_type);
    let Some(own) = match_type.slots.as_mapping.subscript.load() else { return Ok(()) };
    OWN_SUBSCRIPT.get_or_init(|| own);
    match_type.slots.as_mapping.subscript.store(Some(subscript));

    let name = vm.ctx.intern_str("group");
    let own_method = match_type.as_object().get_attr(name, vm)?;
    let zero: PyObjectRef = vm.ctx.new_int(0).into();
    let method = super::super::fast_method(vm, "group", match_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let found = match args.args.split_first() {
            // The subscript slot reads its object as a `Match` unchecked: only a `Match` is given to it.
            // (RustPython's method descriptor has checked the type already; this is what the slot relies on.)
            Some((found, groups)) if found.class().is(match_type) => (found, groups),
            _ => return own_method.call(args, vm),
        };
        if !args.kwargs.is_empty() {
            return Err(vm.new_type_error("Match.group() takes no keyword arguments"));
        }
        match found {
            (found, []) => own_group(own, found, &zero, vm),
            (found, [group]) => own_group(own, found, group, vm),
            (found, groups) => {
                let each = groups.iter().map(|group| own_group(own, found, group, vm)).collect::<PyResult<Vec<_>>>()?;
                Ok(vm.ctx.new_tuple(each).into())
            }
        }
    });
    match_type.set_attr(name, method.into());
    Ok(())
}
