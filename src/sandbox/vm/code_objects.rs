//! Code objects come only from the compiler: sandbox code cannot build or change one (the VM runs bytecode
//! without verifying it).

use rustpython_vm::{PyPayload, PyRef, PyResult, VirtualMachine};

/// Sandbox code must not build code objects of its own: the VM runs bytecode without verifying it, so crafted
/// bytecode could crash the process or worse. Code objects then only come from the compiler (`compile`,
/// `def`, `lambda`), and assigning one to `function.__code__` is no more than defining that function. The one
/// change left is what `types.coroutine` (which asyncio uses) makes: marking a generator's code as an
/// iterable coroutine, a flag that changes no bytecode.
pub fn forbid_code_crafting(vm: &VirtualMachine) {
    let code_type = vm.ctx.types.code_type;
    code_type.modified();
    code_type.attributes.remove(vm.ctx.intern_str("__replace__"));
    code_type
        .set_attr(vm.ctx.intern_str("replace"), vm.new_method("replace", code_type, mark_iterable_coroutine).into());
    code_type.slots.new.store(Some(refuse_code_construction));
}

/// `code.replace(co_flags=...)` that only sets CO_ITERABLE_COROUTINE; anything else is refused.
fn mark_iterable_coroutine(
    code: PyRef<rustpython_vm::builtins::PyCode>,
    args: rustpython_vm::function::FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<PyRef<rustpython_vm::builtins::PyCode>> {
    use rustpython_vm::bytecode::CodeFlags;
    let old = code.code.flags;
    let flags = match (args.args.as_slice(), args.kwargs.len(), args.kwargs.get("co_flags")) {
        ([], 1, Some(flags)) => flags.try_to_value::<u32>(vm).ok().and_then(CodeFlags::from_bits),
        _ => None,
    };
    match flags {
        Some(flags) if old.contains(CodeFlags::GENERATOR) && flags == old | CodeFlags::ITERABLE_COROUTINE => {
            let mut marked = code.code.clone();
            marked.flags = flags;
            Ok(rustpython_vm::builtins::PyCode::new(marked).into_ref(&vm.ctx))
        }
        _ => Err(refused_code_change(vm)),
    }
}

fn refused_code_change(vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_exception_msg(
        vm.ctx.exceptions.permission_error.to_owned(),
        "code objects cannot be created or modified in the sandbox; write the code as def/lambda, or compile() it"
            .into(),
    )
}

fn refuse_code_construction(
    _cls: rustpython_vm::builtins::PyTypeRef,
    _args: rustpython_vm::function::FuncArgs,
    vm: &VirtualMachine,
) -> PyResult {
    Err(refused_code_change(vm))
}
