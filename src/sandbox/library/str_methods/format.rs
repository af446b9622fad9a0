//! `str.format` for templates of plain fields (`'{} {}'`, `'{0:>6}'`, `'{name!r:<20}'`), as models write
//! report lines: RustPython parses the template into a list of parts on every call and looks each field's
//! value up through its general machinery, which dominates a short format's cost. Here the template is
//! read once, checked whole, and written in one pass; each field is formatted by the value's `__format__` (the
//! sandbox's own for `int`, `float` and `str`: `format_spec`).
//!
//! A template with anything else (attribute or index access in a field, a nested field in a spec, mixed
//! numbering, a stray brace, a field with no value, text with surrogates) goes to RustPython's method, which
//! keeps its results and its errors; nothing has been formatted by then, so no `__format__` runs twice.

use crate::sandbox::library::method::fast_method;
use rustpython_vm::builtins::PyStr;
use rustpython_vm::common::wtf8::Wtf8Buf;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::stdlib::builtins;
use rustpython_vm::{AsObject, PyResult, VirtualMachine};

/// A field met after this many pieces (text and fields) of a template sends the template to RustPython's method
/// (no line of a report has so many).
const MAX_PARTS: usize = 128;

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    let name = vm.ctx.intern_str("format");
    let original = str_type.as_object().get_attr(name, vm)?;
    let method = fast_method(vm, "format", str_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let template = args.args.first().and_then(|zelf| zelf.downcast_ref::<PyStr>()).and_then(|zelf| zelf.to_str());
        let given = |value: &Value<'_>| match value {
            Value::Positional(index) => index + 1 < args.args.len(),
            Value::Keyword(name) => args.kwargs.contains_key(name),
        };
        let parts = template.and_then(|template| parse(template, given));
        match (template, parts) {
            (Some(template), Some(parts)) => format(template, &parts, &args, vm),
            _ => original.call(args, vm),
        }
    });
    str_type.set_attr(name, method.into());
    Ok(())
}

/// One piece of a template: literal text (a byte range of it; `{{` and `}}` are one brace each) or a field.
#[derive(Debug, PartialEq)]
enum Part<'t> {
    Text(&'t str),
    Field { value: Value<'t>, conversion: Option<char>, spec: &'t str },
}

/// Where a field's value comes from.
#[derive(Debug, PartialEq)]
enum Value<'t> {
    Positional(usize),
    Keyword(&'t str),
}

/// The template's parts, or `None` when it is not one of plain fields, or a field names a value not `given`.
fn parse<'t>(template: &'t str, given: impl Fn(&Value<'t>) -> bool) -> Option<Vec<Part<'t>>> {
    let mut parts = Vec::new();
    let (mut automatic, mut manual) = (0usize, false);
    let mut rest = template;
    while !rest.is_empty() {
        let Some(brace) = rest.find(['{', '}']) else {
            parts.push(Part::Text(rest));
            break;
        };
        let (text, after) = rest.split_at(brace);
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        // A doubled brace is one brace of text.
        if after.len() >= 2 && after.as_bytes()[1] == after.as_bytes()[0] {
            parts.push(Part::Text(&after[..1]));
            rest = &after[2..];
            continue;
        }
        if after.starts_with('}') {
            return None;
        }
        let close = after.find('}')?;
        let field = &after[1..close];
        rest = &after[close + 1..];
        if field.contains('{') || parts.len() >= MAX_PARTS {
            return None;
        }
        let (head, spec) = field.split_once(':').unwrap_or((field, ""));
        // An attribute or an index (in whose brackets a colon does not end the name); a name that is not ASCII
        // (CPython reads Unicode decimal digits as a position, `'{\u{663}}'` as 3).
        if head.contains(['[', '.']) || !head.is_ascii() {
            return None;
        }
        let (name, conversion) = match head.split_once('!') {
            Some((name, conversion)) => match conversion.as_bytes() {
                [c @ (b'r' | b's' | b'a')] => (name, Some(*c as char)),
                _ => return None,
            },
            None => (head, None),
        };
        let value = if name.is_empty() {
            if manual {
                return None;
            }
            automatic += 1;
            Value::Positional(automatic - 1)
        } else if name.bytes().all(|b| b.is_ascii_digit()) {
            if automatic > 0 {
                return None;
            }
            manual = true;
            Value::Positional(name.parse().ok()?)
        } else {
            Value::Keyword(name)
        };
        if !given(&value) {
            return None;
        }
        parts.push(Part::Field { value, conversion, spec });
    }
    Some(parts)
}

fn format(template: &str, parts: &[Part<'_>], args: &FuncArgs, vm: &VirtualMachine) -> PyResult {
    let mut out = Wtf8Buf::with_capacity(template.len() + 16 * parts.len());
    for part in parts {
        let (value, conversion, spec) = match part {
            Part::Text(text) => {
                out.push_str(text);
                continue;
            }
            Part::Field { value, conversion, spec } => (value, conversion, spec),
        };
        let value = match value {
            Value::Positional(index) => &args.args[index + 1],
            Value::Keyword(name) => {
                args.kwargs.get(name).ok_or_else(|| vm.new_key_error(vm.ctx.new_str(*name).into()))?
            }
        };
        let converted = match conversion {
            None => None,
            Some('r') => Some(value.repr(vm)?),
            Some('a') => Some(builtins::ascii(value.clone(), vm)?),
            Some(_) => Some(value.str(vm)?),
        };
        let value = converted.as_ref().map_or(value.as_object(), |converted| converted.as_object());
        let spec = if spec.is_empty() { vm.ctx.empty_str.to_owned() } else { vm.ctx.new_str(*spec) };
        out.push_wtf8(vm.format(value, spec)?.as_wtf8());
    }
    Ok(vm.ctx.new_str(out).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of `template` with two positional values and a keyword `name`.
    fn parts(template: &str) -> Option<Vec<Part<'_>>> {
        parse(template, |value| match value {
            Value::Positional(index) => *index < 2,
            Value::Keyword(name) => *name == "name",
        })
    }

    fn field<'t>(value: Value<'t>, conversion: Option<char>, spec: &'t str) -> Part<'t> {
        Part::Field { value, conversion, spec }
    }

    #[test]
    fn plain_fields_are_read_with_their_conversion_and_spec() {
        assert_eq!(
            parts("a {{b}} {:>6} {!r:<3}").unwrap(),
            vec![
                Part::Text("a "),
                Part::Text("{"),
                Part::Text("b"),
                Part::Text("}"),
                Part::Text(" "),
                field(Value::Positional(0), None, ">6"),
                Part::Text(" "),
                field(Value::Positional(1), Some('r'), "<3"),
            ]
        );
        assert_eq!(parts("{1}{0}{name!s}").unwrap().len(), 3);
        // A spec may hold a colon or an exclamation mark; the field name ends at the first colon.
        assert_eq!(parts("{0:!<5}").unwrap(), vec![field(Value::Positional(0), None, "!<5")]);
        assert_eq!(parts("{:.2f}").unwrap(), vec![field(Value::Positional(0), None, ".2f")]);
    }

    #[test]
    fn anything_else_is_left_to_rustpython() {
        for template in [
            "{} {0}",
            "{0} {}",
            "{2}",
            "{other}",
            "{0.real}",
            "{0[1]}",
            "{:{}}",
            "}",
            "a}b",
            "{",
            "{0!x}",
            "{0!rs}",
            "{!}",
            "{\u{663}}",
        ] {
            assert_eq!(parts(template), None, "{template:?}");
        }
    }
}
