//! `str.count(sub)` over the string's UTF-8 bytes: `memchr` for one byte, `memmem` otherwise. UTF-8 is
//! self-synchronising, so the non-overlapping matches of a valid UTF-8 `sub` in the bytes are its matches in the
//! code points, in any script. RustPython compares code points one at a time, several times slower over a
//! long text. With `start` or `end`, an empty `sub`, a subclass or a string that is not valid UTF-8 (a lone
//! surrogate), RustPython's own method answers, with its argument errors.

use crate::sandbox::library::method::fast_method;
use rustpython_vm::builtins::PyStr;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    let name = vm.ctx.intern_str("count");
    let original = str_type.as_object().get_attr(name, vm)?;
    let method = fast_method(vm, "count", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let texts = match args.args.as_slice() {
            [zelf, sub] if args.kwargs.is_empty() && zelf.class().is(str_type) && sub.class().is(str_type) => {
                utf8(zelf).zip(utf8(sub)).filter(|(_, sub)| !sub.is_empty())
            }
            _ => None,
        };
        match texts {
            Some((haystack, needle)) => Ok(vm.ctx.new_int(count(haystack.as_bytes(), needle.as_bytes())).into()),
            None => original.call(args, vm),
        }
    });
    str_type.set_attr(name, method.into());
    Ok(())
}

/// The text of an exact `str` that is valid UTF-8.
fn utf8(object: &PyObjectRef) -> Option<&str> {
    object.downcast_ref::<PyStr>().and_then(|text| text.to_str())
}

/// Non-overlapping occurrences of a non-empty `needle` in `haystack`.
fn count(haystack: &[u8], needle: &[u8]) -> usize {
    match needle {
        [byte] => memchr::memchr_iter(*byte, haystack).count(),
        _ => memchr::memmem::find_iter(haystack, needle).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn matches_do_not_overlap_and_multibyte_text_counts_by_characters() {
        assert_eq!(count(b"aaaa", b"aa"), 2);
        assert_eq!(count(b"abcabc", b"c"), 2);
        assert_eq!(count("été été".as_bytes(), "é".as_bytes()), 4);
        assert_eq!(count("日本日本日".as_bytes(), "日本".as_bytes()), 2);
        assert_eq!(count(b"abc", b"abcd"), 0);
    }
}
