//! Native methods put in place of a class's own, called as fast as RustPython calls its own.

use rustpython_vm::builtins::descriptor::PyMethodDescriptor;
use rustpython_vm::builtins::PyType;
use rustpython_vm::function::{IntoPyNativeFn, ItemDoc, PyMethodFlags};
use rustpython_vm::{Py, PyRef, PyResult, TryFromObject, VirtualMachine};

/// A method of `class` whose body binds its own arguments (`FuncArgs`), to put in place of the class's method
/// `name`: it keeps that method's doc, so `__text_signature__` and `inspect.signature` read as for it, and it is
/// flagged as taking its arguments by vector with keywords, so that RustPython's call specialisation calls its
/// body straight from the frame (`CALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS`). `vm.new_method` sets neither,
/// which keeps every call on the general path (vectorcall, the descriptor's type check, the native-call guard,
/// the argument vector made again), a large part of a short method such as `line.strip()` or `w.lower()` (what
/// is left beyond CPython's cost is RustPython's argument vector and binding).
pub fn fast_method<F, FKind>(
    vm: &VirtualMachine,
    name: &'static str,
    class: &'static Py<PyType>,
    body: F,
) -> PyRef<PyMethodDescriptor>
where
    F: IntoPyNativeFn<FKind>,
{
    let original = class.get_attr(vm.ctx.intern_str(name));
    let doc = original
        .as_ref()
        .and_then(|original| original.downcast_ref::<PyMethodDescriptor>())
        .map_or(ItemDoc::NONE, |original| original.method.item_doc());
    let flags = PyMethodFlags::METHOD | PyMethodFlags::FASTCALL | PyMethodFlags::KEYWORDS;
    vm.ctx.new_method_def(name, body, flags, doc).build_method(class, vm)
}

/// Class `name` of module `module`, as the `'static` type `fast_method` and slot replacements take: the zygote's
/// modules and their classes live as long as the process.
pub fn module_class(vm: &VirtualMachine, module: &'static str, name: &'static str) -> PyResult<&'static Py<PyType>> {
    let class = vm.import(module, 0)?.get_attr(name, vm)?;
    Ok(PyRef::leak(PyRef::<PyType>::try_from_object(vm, class)?))
}
