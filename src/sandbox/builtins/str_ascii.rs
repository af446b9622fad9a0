//! `str` methods by bytes for an ASCII string, where RustPython's walk code points and work out each result's
//! kind again (issue 30's text work splits and lower-cases whole contexts and every line); other strings go to
//! RustPython's own methods, which keep their argument errors and Unicode mappings.
//! - `splitlines(keepends=False)`: an ASCII string's line boundaries are bytes (`\n`, `\r`, `\r\n`, `\v`,
//!   `\f`, `\x1c`-`\x1e`); 1 MB took 2.4 ms where CPython takes 0.8. `keepends` takes any truth value, as
//!   CPython's does (RustPython's wanted a bool), so the method is bound here for every string.
//! - `lower()` and `upper()`: a byte slice's `make_ascii_lowercase` is vectorised; RustPython's own mapped one
//!   `AsciiChar` at a time (10 MB: 12 ms; CPython: 3).

use rustpython_vm::builtins::{PyList, PyStr};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine};

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    let name = vm.ctx.intern_str("splitlines");
    let original = str_type.as_object().get_attr(name, vm)?;
    let method = vm.new_method("splitlines", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let (zelf, keepends) = bind_splitlines(args, vm)?;
        match ascii(zelf.as_object()) {
            Some(text) => Ok(PyList::from(ascii_lines(text, keepends, vm)).into_ref(&vm.ctx).into()),
            None => original.call((zelf.clone(), vm.ctx.new_bool(keepends)), vm),
        }
    });
    str_type.set_attr(name, method.into());

    for (name, lower) in [("lower", true), ("upper", false)] {
        let name = vm.ctx.intern_str(name);
        let original = str_type.as_object().get_attr(name, vm)?;
        let method = vm.new_method(name.as_str(), str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let text = match args.args.as_slice() {
                [zelf] if args.kwargs.is_empty() => ascii(zelf),
                _ => None,
            };
            let Some(text) = text else {
                return original.call(args, vm);
            };
            let mut bytes = text.to_vec();
            if lower {
                bytes.make_ascii_lowercase();
            } else {
                bytes.make_ascii_uppercase();
            }
            Ok(new_ascii(bytes, vm))
        });
        str_type.set_attr(name, method.into());
    }
    Ok(())
}

/// The bytes of `obj` when it is an ASCII `str` (its length in characters is its length in bytes).
fn ascii(obj: &PyObject) -> Option<&[u8]> {
    let text = obj.downcast_ref::<PyStr>()?;
    let bytes = text.as_wtf8().as_bytes();
    (text.char_len() == bytes.len()).then_some(bytes)
}

/// A `str` of ASCII bytes, made without looking at them again.
fn new_ascii(bytes: Vec<u8>, vm: &VirtualMachine) -> PyObjectRef {
    debug_assert!(bytes.is_ascii());
    // SAFETY: every caller passes bytes of an ASCII string, or their ASCII case mapping.
    unsafe { PyStr::new_ascii_unchecked(bytes) }.into_ref(&vm.ctx).into()
}

/// Line boundaries among the ASCII bytes.
const fn boundaries() -> [bool; 128] {
    let mut table = [false; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = matches!(byte as u8, b'\n' | b'\r' | 0x0b | 0x0c | 0x1c | 0x1d | 0x1e);
        byte += 1;
    }
    table
}
const BOUNDARY: [bool; 128] = boundaries();

fn ascii_lines(text: &[u8], keepends: bool, vm: &VirtualMachine) -> Vec<PyObjectRef> {
    let mut lines = Vec::new();
    let (mut start, mut at) = (0, 0);
    while at < text.len() {
        let byte = text[at];
        if byte >= 128 || !BOUNDARY[byte as usize] {
            at += 1;
            continue;
        }
        let end = if byte == b'\r' && text.get(at + 1) == Some(&b'\n') { at + 2 } else { at + 1 };
        lines.push(new_ascii(text[start..if keepends { end } else { at }].to_vec(), vm));
        start = end;
        at = end;
    }
    if start < text.len() {
        lines.push(new_ascii(text[start..].to_vec(), vm));
    }
    lines
}

/// `splitlines(self, keepends=False)`, bound as CPython binds it.
fn bind_splitlines(args: FuncArgs, vm: &VirtualMachine) -> PyResult<(rustpython_vm::PyRef<PyStr>, bool)> {
    let FuncArgs { args: positional, kwargs } = args;
    let mut positional = positional.into_iter();
    let zelf = positional
        .next()
        .ok_or_else(|| vm.new_type_error("unbound method str.splitlines() needs an argument"))?
        .downcast::<PyStr>()
        .map_err(|obj| vm.new_type_error(format!("descriptor 'splitlines' for 'str' objects doesn't apply to a '{}' object", obj.class().name())))?;
    let rest: Vec<PyObjectRef> = positional.collect();
    if rest.len() + kwargs.len() > 1 {
        return Err(vm.new_type_error(format!("splitlines() takes at most 1 argument ({} given)", rest.len() + kwargs.len())));
    }
    let mut keepends = rest.into_iter().next();
    for (key, value) in kwargs {
        if key.as_bytes() != b"keepends" {
            return Err(vm.new_type_error(format!("splitlines() got an unexpected keyword argument '{key}'")));
        }
        keepends = Some(value);
    }
    let keepends = match keepends {
        Some(value) => value.try_to_bool(vm)?,
        None => false,
    };
    Ok((zelf, keepends))
}
