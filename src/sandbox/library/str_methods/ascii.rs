//! `str` methods by bytes for an ASCII string, where RustPython's walk code points and work out each result's
//! kind again (code models' text work splits and lower-cases whole contexts and every line); other strings go
//! to RustPython's own methods, which keep their argument errors and Unicode mappings.
//! - `splitlines(keepends=False)`: an ASCII string's line boundaries are bytes (`\n`, `\r`, `\r\n`, `\v`,
//!   `\f`, `\x1c`-`\x1e`), found without decoding a code point. `keepends` takes any truth value, as
//!   CPython's does (RustPython's wants a bool), so the method is bound here for every string.
//! - `lower()` and `upper()`: a byte slice's `make_ascii_lowercase` is vectorised; RustPython's own maps one
//!   `AsciiChar` at a time.
//! - `split(sep=None, maxsplit=-1)` with no separator or an ASCII one: words are runs of bytes outside
//!   `WHITESPACE`, pieces are found with `memchr`; RustPython asks Unicode's whitespace table for every
//!   character and makes each piece twice (an `AsciiString`, then the `str`). In a long string equal pieces
//!   are one object (`SharedStrs`).
//! - `strip()`, `lstrip()`, `rstrip()` with no argument, `None` or an ASCII `str`: the ends are trimmed by bytes,
//!   and a string with nothing to trim is returned itself, as CPython returns it (RustPython tests every code
//!   point against Unicode's whitespace and copies the string; most of what `line.strip()` costs beyond
//!   CPython's is the call itself: `fast_method`).

use rustpython_vm::builtins::{PyInt, PyList, PyStr};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine};

use super::shared::SharedStrs;
use crate::sandbox::library::method::fast_method;

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    let name = vm.ctx.intern_str("splitlines");
    let original = str_type.as_object().get_attr(name, vm)?;
    let method = fast_method(vm, "splitlines", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
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
        let method = fast_method(vm, name.as_str(), str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
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
    let method = fast_method(vm, "split", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        // RustPython's words for these are its own; these are CPython's (a count error comes first).
        if args.args.first().is_some_and(|zelf| zelf.downcast_ref::<PyStr>().is_some()) {
            let given = args.args.len() - 1 + args.kwargs.len();
            if given > 2 {
                let kind = if args.args.len() == 1 { "keyword arguments" } else { "arguments" };
                return Err(vm.new_type_error(format!("split() takes at most 2 {kind} ({given} given)")));
            }
            for (position, name) in [(1, "sep"), (2, "maxsplit")] {
                if args.args.len() > position && args.kwargs.contains_key(name) {
                    return Err(vm.new_type_error(format!(
                        "argument for split() given by name ('{name}') and position ({position})"
                    )));
                }
            }
            // `maxsplit` is converted before `sep` is looked at: a value with no `__index__` is the first error.
            let most = args.args.get(2).or_else(|| args.kwargs.get("maxsplit"));
            if let Some(most) = most {
                if most.downcast_ref::<PyInt>().is_none() && most.class().slots.as_number.index.load().is_none() {
                    return Err(vm.new_type_error(format!(
                        "'{}' object cannot be interpreted as an integer",
                        most.class().name()
                    )));
                }
            }
            let sep = args.args.get(1).or_else(|| args.kwargs.get("sep"));
            if let Some(sep) = sep.filter(|sep| !vm.is_none(sep) && sep.downcast_ref::<PyStr>().is_none()) {
                return Err(vm.new_type_error(format!("must be str or None, not {}", sep.class().name())));
            }
        }
        let Some((zelf, text, sep, most)) = bind_split(&args, vm) else {
            return original.call(args, vm);
        };
        let pieces = match sep {
            None => ascii_words(text, most),
            Some(sep) => ascii_pieces(text, sep, most),
        };
        // One piece that is the whole string is the string itself when it is an exact `str`, as in CPython
        // (whose whitespace split makes a new one when `maxsplit` is 0: the piece is then "the rest").
        if let [(0, end)] = pieces.as_slice() {
            if *end == text.len() && zelf.class().is(vm.ctx.types.str_type) && (sep.is_some() || most > 0) {
                return Ok(vm.ctx.new_list(vec![zelf.clone()]).into());
            }
        }
        Ok(PyList::from(shared_pieces(text, &pieces, vm)).into_ref(&vm.ctx).into())
    });
    str_type.set_attr(name, method.into());

    for (name, left, right) in [("strip", true, true), ("lstrip", true, false), ("rstrip", false, true)] {
        let name = vm.ctx.intern_str(name);
        let original = str_type.as_object().get_attr(name, vm)?;
        let method = fast_method(vm, name.as_str(), str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            // RustPython's words for these are its own; these are CPython's (a count error comes first).
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

/// A `str` of ASCII bytes, made without looking at them again (`PyStr::from` reads them once more for their
/// kind, a visible share of a `re.findall` that makes many short strs).
pub(crate) fn new_ascii(bytes: Vec<u8>, vm: &VirtualMachine) -> PyObjectRef {
    debug_assert!(bytes.is_ascii());
    // SAFETY: every caller passes bytes of an ASCII string (a piece of one), or their ASCII case mapping.
    unsafe { PyStr::new_ascii_unchecked(bytes) }.into_ref(&vm.ctx).into()
}

/// `split(sep=None, maxsplit=-1)` on an ASCII string, its separator (`None`: whitespace) an ASCII `str` and
/// `maxsplit` an int: the string, its bytes, the separator and the most splits. Anything else is `None`, for
/// RustPython's method (a non-ASCII string or separator, an empty separator, an `__index__` object).
fn bind_split<'a>(
    args: &'a FuncArgs,
    vm: &VirtualMachine,
) -> Option<(&'a PyObjectRef, &'a [u8], Option<&'a [u8]>, usize)> {
    let (zelf, rest) = args.args.split_first()?;
    let mut given: [Option<&PyObjectRef>; 2] = [rest.first(), rest.get(1)];
    if rest.len() > 2 {
        return None;
    }
    for (name, value) in &args.kwargs {
        let slot = match name.as_bytes() {
            b"sep" => 0,
            b"maxsplit" => 1,
            _ => return None,
        };
        if given[slot].replace(value).is_some() {
            return None;
        }
    }
    let text = ascii(zelf)?;
    let sep = match given[0] {
        Some(sep) if !vm.is_none(sep) => Some(ascii(sep).filter(|sep| !sep.is_empty())?),
        _ => None,
    };
    let most = match given[1] {
        Some(most) => {
            let most: isize = most.downcast_ref_if_exact::<PyInt>(vm)?.as_bigint().try_into().ok()?;
            usize::try_from(most).unwrap_or(usize::MAX)
        }
        None => usize::MAX,
    };
    Some((zelf, text, sep, most))
}

/// The words of an ASCII string, split at runs of `WHITESPACE` at most `most` times, as CPython's
/// `split_whitespace` does: past the last split, the rest loses its leading whitespace and keeps the rest.
fn ascii_words(text: &[u8], most: usize) -> Vec<(usize, usize)> {
    let space = |byte: u8| WHITESPACE[usize::from(byte)];
    let mut words = Vec::new();
    let mut at = 0;
    while words.len() < most {
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
        words.push((start, at));
    }
    while at < text.len() && space(text[at]) {
        at += 1;
    }
    if at < text.len() {
        words.push((at, text.len()));
    }
    words
}

/// The pieces of an ASCII string between occurrences of `sep`, at most `most` splits from the left.
fn ascii_pieces(text: &[u8], sep: &[u8], most: usize) -> Vec<(usize, usize)> {
    match sep {
        [byte] => cut_at(text, memchr::memchr_iter(*byte, text), 1, most),
        _ => cut_at(text, memchr::memmem::find_iter(text, sep), sep.len(), most),
    }
}

fn cut_at(text: &[u8], found: impl Iterator<Item = usize>, width: usize, most: usize) -> Vec<(usize, usize)> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for at in found {
        if pieces.len() == most {
            break;
        }
        // An occurrence that overlaps the one just cut is no separator (`'aaa'.split('aa')`).
        if at >= start {
            pieces.push((start, at));
            start = at + width;
        }
    }
    pieces.push((start, text.len()));
    pieces
}

/// The pieces of `text` as strs, equal pieces of a long text one object (`SharedStrs`): a repeated word is
/// made once, and a later set or dict lookup of it (`set(context.split())`, the word-count loop
/// `counts[w] = counts.get(w, 0) + 1`) finds it by identity.
fn shared_pieces(text: &[u8], pieces: &[(usize, usize)], vm: &VirtualMachine) -> Vec<PyObjectRef> {
    let mut shared = SharedStrs::for_text(text.len());
    pieces
        .iter()
        .map(|&(start, end)| shared.get_or_make(&text[start..end], || new_ascii(text[start..end].to_vec(), vm)))
        .collect()
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
        .map_err(|obj| {
            vm.new_type_error(format!(
                "descriptor 'splitlines' for 'str' objects doesn't apply to a '{}' object",
                obj.class().name()
            ))
        })?;
    let rest: Vec<PyObjectRef> = positional.collect();
    if rest.len() + kwargs.len() > 1 {
        return Err(
            vm.new_type_error(format!("splitlines() takes at most 1 argument ({} given)", rest.len() + kwargs.len()))
        );
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
