//! `str.lower` and `str.upper` of an ASCII string, by bytes. RustPython's own maps an ASCII string one
//! `AsciiChar` at a time: `lower()` of a 10 MB context took 12 ms where CPython takes 3 (issue 30's text work
//! lower-cases whole contexts and every line). A byte slice's `make_ascii_lowercase` is vectorised; the
//! result is ASCII, made without a second look. Other strings go to RustPython's own methods.

use rustpython_vm::builtins::PyStr;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyPayload, PyResult, VirtualMachine};

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    for (name, lower) in [("lower", true), ("upper", false)] {
        let name = vm.ctx.intern_str(name);
        let original = str_type.as_object().get_attr(name, vm)?;
        let method = vm.new_method(name.as_str(), str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let ascii = match args.args.as_slice() {
                [zelf] if args.kwargs.is_empty() => zelf
                    .downcast_ref::<PyStr>()
                    .filter(|text| text.char_len() == text.as_wtf8().len()),
                _ => None,
            };
            let Some(text) = ascii else {
                return original.call(args, vm); // its own argument errors and its Unicode case mapping
            };
            let mut bytes = text.as_wtf8().as_bytes().to_vec();
            if lower {
                bytes.make_ascii_lowercase();
            } else {
                bytes.make_ascii_uppercase();
            }
            // SAFETY: case-mapping ASCII bytes leaves them ASCII.
            Ok(unsafe { PyStr::new_ascii_unchecked(bytes) }.into_ref(&vm.ctx).into())
        });
        str_type.set_attr(name, method.into());
    }
    Ok(())
}
