//! `__text_signature__` of the builtin callables as CPython 3.14 reports it, so `inspect.signature` answers as
//! CPython's (`sorted` has a signature, `max` none): the attribute of the types of builtin functions and method
//! descriptors is `_sandbox_signatures.text_signature`, which reads CPython's from its table and falls back to
//! RustPython's for a callable CPython does not have.

use rustpython_vm::{PyResult, VirtualMachine};

/// Put the getter in place (the zygote does it once).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let text_signature = vm.import("_sandbox_signatures", 0)?.get_attr("text_signature", vm)?;
    let name = vm.ctx.intern_str("__text_signature__");
    let types = &vm.ctx.types;
    for class in [
        types.builtin_function_or_method_type,
        types.method_descriptor_type,
        types.classmethod_descriptor_type,
        types.wrapper_descriptor_type,
    ] {
        let Some(original) = class.get_attr(name) else { continue };
        class.set_attr(name, text_signature.call((original,), vm)?);
    }
    Ok(())
}
