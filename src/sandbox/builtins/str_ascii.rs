//! `str` methods by bytes for an ASCII string, where RustPython's walk code points and work out each result's
//! kind again (issue 30's text work splits and lower-cases whole contexts and every line); other strings go to
//! RustPython's own methods, which keep their argument errors and Unicode mappings.
//! - `splitlines(keepends=False)`: an ASCII string's line boundaries are bytes (`\n`, `\r`, `\r\n`, `\v`,
//!   `\f`, `\x1c`-`\x1e`); 1 MB took 2.4 ms where CPython takes 0.8. `keepends` takes any truth value, as
//!   CPython's does (RustPython's wanted a bool), so the method is bound here for every string.
//! - `lower()` and `upper()`: a byte slice's `make_ascii_lowercase` is vectorised; RustPython's own mapped one
//!   `AsciiChar` at a time (10 MB: 12 ms; CPython: 3).
//! - `split()` and `split(None)`: words are runs of bytes outside `WHITESPACE`; RustPython asked Unicode's
//!   whitespace table for every character and made each word twice (an `AsciiString`, then the `str`): over a
//!   10 MB log (1.6 million words) 93 ms, CPython 60.
//! - `strip()`, `lstrip()`, `rstrip()` with no argument, `None` or an ASCII `str`: the ends are trimmed by bytes,
//!   and a string with nothing to trim is returned itself, as CPython returns it (RustPython tested every code
//!   point against Unicode's whitespace and copied the string; what is left of `line.strip()`'s 8.9 ms over a
//!   10 MB log, CPython's 1.7, is the call itself: `fast_method`).

use rustpython_vm::builtins::{PyList, PyStr};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine};

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    let name = vm.ctx.intern_str("splitlines");
    let original = str_type.as_object().get_attr(name, vm)?;
    let method = super::fast_method(vm, "splitlines", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
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
        let method = super::fast_method(vm, name.as_str(), str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
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

    let name = vm.ctx.intern_str("split");
    let original = str_type.as_object().get_attr(name, vm)?;
    let method = super::fast_method(vm, "split", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        // RustPython's words for these were its own; these are CPython's (a count error comes first).
        if args.args.first().is_some_and(|zelf| zelf.downcast_ref::<PyStr>().is_some()) {
            let given = args.args.len() - 1 + args.kwargs.len();
            if given > 2 {
                return Err(vm.new_type_error(format!("split() takes at most 2 arguments ({given} given)")));
            }
            let sep = args.args.get(1).or_else(|| args.kwargs.get("sep"));
            if let Some(sep) = sep.filter(|sep| !vm.is_none(sep) && sep.downcast_ref::<PyStr>().is_none()) {
                return Err(vm.new_type_error(format!("must be str or None, not {}", sep.class().name())));
            }
        }
        let text = match (args.args.as_slice(), args.kwargs.is_empty()) {
            ([zelf], true) => ascii(zelf).map(|text| (zelf, text)),
            ([zelf, sep], true) if vm.is_none(sep) => ascii(zelf).map(|text| (zelf, text)),
            _ => None,
        };
        let Some((zelf, text)) = text else {
            return original.call(args, vm);
        };
        Ok(PyList::from(ascii_words(zelf, text, vm)).into_ref(&vm.ctx).into())
    });
    str_type.set_attr(name, method.into());

    for (name, left, right) in [("strip", true, true), ("lstrip", true, false), ("rstrip", false, true)] {
        let name = vm.ctx.intern_str(name);
        let original = str_type.as_object().get_attr(name, vm)?;
        let method = super::fast_method(vm, name.as_str(), str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            // RustPython's words for these were its own; these are CPython's (a count error comes first).
            if args.args.first().is_some_and(|zelf| zelf.downcast_ref::<PyStr>().is_some()) {
                if !args.kwargs.is_empty() {
                    return Err(vm.new_type_error(format!("str.{name}() takes no keyword arguments")));
                }
                if let [_, chars] = args.args.as_slice() {
                    if !vm.is_none(chars) && chars.downcast_ref::<PyStr>().is_none() {
                        return Err(vm.new_type_error(format!("{name} arg must be None or str")));
                    }
                }
            }
            let trimmed = match (args.args.as_slice(), args.kwargs.is_empty()) {
                ([zelf], true) => ascii(zelf).map(|text| (zelf, text, trim(text, &WHITESPACE, left, right))),
                ([zelf, chars], true) => match (ascii(zelf), ascii_set(chars, vm)) {
                    (Some(text), Some(set)) => Some((zelf, text, trim(text, &set, left, right))),
                    _ => None,
                },
                _ => None,
            };
            let Some((zelf, text, (start, end))) = trimmed else {
                return original.call(args, vm);
            };
            if start == 0 && end == text.len() && zelf.class().is(vm.ctx.types.str_type) {
                return Ok(zelf.clone());
            }
            Ok(new_ascii(text[start..end].to_vec(), vm))
        });
        str_type.set_attr(name, method.into());
    }
    Ok(())
}

/// The ASCII characters `str.isspace()` is true for (`\t`-`\r`, `\x1c`-`\x1f`, space).
const WHITESPACE: [bool; 128] = {
    let mut table = [false; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = matches!(byte as u8, 0x09..=0x0d | 0x1c..=0x20);
        byte += 1;
    }
    table
};

/// The set of an ASCII `str` argument of `strip` (`None` is whitespace); `None` for anything else.
fn ascii_set(chars: &PyObject, vm: &VirtualMachine) -> Option<[bool; 128]> {
    if vm.is_none(chars) {
        return Some(WHITESPACE);
    }
    let mut set = [false; 128];
    for &byte in ascii(chars)? {
        set[usize::from(byte)] = true;
    }
    Some(set)
}

/// The range of `text` left after trimming bytes in `set` from the chosen ends.
fn trim(text: &[u8], set: &[bool; 128], left: bool, right: bool) -> (usize, usize) {
    let mut start = 0;
    let mut end = text.len();
    if left {
        while start < end && set[usize::from(text[start])] {
            start += 1;
        }
    }
    if right {
        while end > start && set[usize::from(text[end - 1])] {
            end -= 1;
        }
    }
    (start, end)
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

/// The words of an ASCII string, split at runs of `WHITESPACE`. A string that is one word, with no
/// whitespace, is that word itself when it is an exact `str` (CPython returns it so too).
fn ascii_words(zelf: &PyObjectRef, text: &[u8], vm: &VirtualMachine) -> Vec<PyObjectRef> {
    let space = |byte: u8| WHITESPACE[usize::from(byte)];
    let mut words = Vec::new();
    let mut at = 0;
    loop {
        while at < text.len() && space(text[at]) {
            at += 1;
        }
        if at == text.len() {
            return words;
        }
        let start = at;
        while at < text.len() && !space(text[at]) {
            at += 1;
        }
        if start == 0 && at == text.len() && zelf.class().is(vm.ctx.types.str_type) {
            words.push(zelf.clone());
        } else {
            words.push(new_ascii(text[start..at].to_vec(), vm));
        }
    }
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
