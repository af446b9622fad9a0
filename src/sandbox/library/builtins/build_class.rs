//! `__build_class__`: RustPython's own, then one correction on the class it made.
//!
//! RustPython's attribute-store specialization takes a class attribute whose type has `__set__` (or
//! `__delete__`) but no `__get__` for a plain value: once the store is warm it writes into the instance dict
//! and never calls `__set__`. CPython calls `__set__` on every store. networkx keeps a graph's `_adj` and
//! `_succ` in step with such a descriptor, so from the third `DiGraph` on `_succ` would be missing. The specializer
//! only specializes classes whose setattr slot is object's, so a class holding such a descriptor (or deriving
//! from one that does) is given a setattr slot of its own that does exactly what object's does: its stores
//! all take the generic path, which honours `__set__`. Classes made by calling `type()` directly are not
//! seen here; a class statement is how code models and packages write make them.

use rustpython_vm::builtins::{PyStr, PyType};
use rustpython_vm::function::{FuncArgs, PySetterValue};
use rustpython_vm::{Py, PyObject, PyObjectRef, PyResult, VirtualMachine};

/// Put the wrapper in place of the VM's `__build_class__`.
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let guarded = generic_setattr as Setattro as usize;
    if vm.ctx.types.object_type.slots.setattro.load().map(|f| f as usize) == Some(guarded) {
        return Err(vm.new_system_error("the guarded setattr has object's own address (merged by the linker)"));
    }
    let original = vm.builtins.get_attr("__build_class__", vm)?;
    let wrapper = vm.new_function("__build_class__", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let made = original.call(args, vm)?;
        if let Some(cls) = made.downcast_ref::<PyType>() {
            guard_set_only_descriptors(cls, vm);
        }
        Ok(made)
    });
    vm.builtins.set_attr("__build_class__", wrapper, vm)
}

/// object's setattr, under another address (see the module comment). The `black_box` keeps its body unlike
/// object's own: the `dist` build's fat LTO merges identical functions into one address, which would lose the
/// guard in the wheel alone (not in `release`). `install` checks it.
fn generic_setattr(obj: &PyObject, name: &Py<PyStr>, value: PySetterValue, vm: &VirtualMachine) -> PyResult<()> {
    obj.generic_setattr(std::hint::black_box(name), value, vm)
}

// `SetattroFunc` is not exported: the slot's value is compared by address.
type Setattro = fn(&PyObject, &Py<PyStr>, PySetterValue, &VirtualMachine) -> PyResult<()>;

fn guard_set_only_descriptors(cls: &Py<PyType>, vm: &VirtualMachine) {
    let address = |f: Option<Setattro>| f.map_or(0, |f| f as usize);
    if address(cls.slots.setattro.load()) != address(vm.ctx.types.object_type.slots.setattro.load()) {
        return; // its own __setattr__ (or an inherited one): the specializer leaves it alone already
    }
    let guarded = generic_setattr as Setattro as usize;
    let inherited = cls.bases.read().iter().any(|base| address(base.slots.setattro.load()) == guarded);
    let own = cls.attributes.as_dict().is_some_and(|dict| dict.values_vec().iter().any(is_set_only));
    if inherited || own {
        cls.slots.setattro.store(Some(generic_setattr));
    }
}

fn is_set_only(value: &PyObjectRef) -> bool {
    let slots = &value.class().slots;
    slots.descr_set.load().is_some() && slots.descr_get.load().is_none()
}
