//! Builtins as CPython computes them: `sum`, `round`, a correction to `__build_class__`, and `compile`'s syntax
//! errors for an AST (`ast.parse`, `ast.literal_eval`) in the words of its errors for code.

mod build_class;
mod round;
mod sum;

use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyResult, VirtualMachine};

/// `compile`'s flag asking for an AST (`ast.PyCF_ONLY_AST`).
const ONLY_AST: i64 = 0x400;

/// Replace them in the VM's `builtins` module (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    vm.builtins.set_attr("sum", vm.new_function("sum", sum::sum), vm)?;
    vm.builtins.set_attr("round", vm.new_function("round", round::round), vm)?;
    syntax_errors_of_asts(vm)?;
    build_class::install(vm)
}

/// `compile(..., flags=PyCF_ONLY_AST)` parses without the compiler's wording of syntax errors, so `ast.parse("{'a':
/// 1")` said `unexpected EOF while parsing` where CPython (and `compile` for code) says `'{' was never closed`:
/// source that does not parse into an AST is compiled as code to raise that error in its words.
fn syntax_errors_of_asts(vm: &VirtualMachine) -> PyResult<()> {
    let compile = vm.builtins.get_attr("compile", vm)?;
    let wrapped = vm.new_function("compile", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let error = match compile.call(args.clone(), vm) {
            Err(error) if error.class().is(vm.ctx.exceptions.syntax_error) => error,
            other => return other,
        };
        let flags = args.args.get(3).cloned().or_else(|| args.kwargs.get("flags").cloned());
        let only_ast =
            flags.and_then(|flags| flags.try_int(vm).ok()).and_then(|flags| i64::try_from(flags.as_bigint()).ok());
        let Some(flags) = only_ast.filter(|flags| flags & ONLY_AST != 0) else { return Err(error) };
        let mut as_code = args;
        let without = vm.ctx.new_int(flags & !ONLY_AST).into();
        if as_code.args.len() > 3 {
            as_code.args[3] = without;
        } else {
            as_code.kwargs.insert("flags".into(), without);
        }
        match compile.call(as_code, vm) {
            Err(worded) if worded.class().is(vm.ctx.exceptions.syntax_error) => Err(worded),
            _ => Err(error),
        }
    });
    vm.builtins.set_attr("compile", wrapped, vm)
}
