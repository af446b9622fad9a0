//! `str % values` for templates of plain conversions (`'%d'`, `'%-10s|%5.2f'`, `'%s=%r'`, `'%08x'`): RustPython's
//! `printf`-style formatting first parses the template into a list of parts, most of a short format's cost.
//! Here the template is read once and checked whole, each number is written by `format_spec`'s writers (a
//! conversion's flags are a format spec's fill, alignment and sign), and the text in one pass.
//!
//! The `%` of `str` is its number slot (`remainder`), replaced in the zygote; a template with anything else
//! (`%(name)s`, `*` widths, `%c`, `%g`, a precision on an integer conversion, `#` on a float, a length modifier),
//! a value count that does not match, or a number conversion of anything but an int or a float goes to
//! RustPython's slot, which keeps its results and its errors. Numbers are written before any `str()` or `repr()`
//! is called (they have no side effects), so no value's `__str__` runs twice.

use std::sync::OnceLock;

use num_traits::ToPrimitive;
use rustpython_vm::builtins::{PyFloat, PyInt, PyStr, PyTuple};
use rustpython_vm::common::wtf8::Wtf8Buf;
use rustpython_vm::protocol::PyNumberBinaryFunc;
use rustpython_vm::stdlib::builtins;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};

use super::format_spec::{digits, format_float, format_int, Align, Spec, MAX_PRECISION, MAX_WIDTH};

static OWN_REMAINDER: OnceLock<PyNumberBinaryFunc> = OnceLock::new();

/// Replace the `%` of `str` (the zygote does it once, before any str subclass is made).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let str_type = vm.ctx.types.str_type;
    let Some(own) = str_type.slots.as_number.remainder.load() else { return Ok(()) };
    OWN_REMAINDER.get_or_init(|| own);
    str_type.slots.as_number.remainder.store(Some(remainder));
    Ok(())
}

fn remainder(template: &PyObject, given: &PyObject, vm: &VirtualMachine) -> PyResult {
    let own = *OWN_REMAINDER.get().expect("set before the slot is replaced");
    let Some(text) = template.downcast_ref::<PyStr>().and_then(|template| template.to_str()) else {
        return own(template, given, vm);
    };
    // A tuple (or a tuple subclass) holds the values; anything else is the one value.
    let single;
    let values: &[PyObjectRef] = match given.downcast_ref::<PyTuple>() {
        Some(tuple) => tuple.as_slice(),
        None => {
            single = [given.to_owned()];
            &single
        }
    };
    match plan(text, values.len(), |index| number(&values[index], vm)) {
        Some(parts) => Ok(vm.ctx.new_str(write(&parts, text.len(), values, vm)?).into()),
        None => own(template, given, vm),
    }
}

/// One piece of a template: text, a number already written, or a value to turn into text as it is written.
#[derive(Debug, PartialEq)]
enum Part<'t> {
    Literal(&'t str),
    Number(String),
    /// `%s`, `%r` or `%a` of the value at `index`; no fill but spaces, right-aligned unless `-`.
    Converted {
        index: usize,
        conversion: char,
        left: bool,
        width: usize,
        precision: Option<usize>,
    },
}

/// A value a number conversion can write here.
#[derive(Clone, Copy, Debug)]
enum Number {
    /// `exact`: an `int` or a `bool`, not a subclass (whose `__float__` CPython's `%f` would call).
    Int {
        value: i64,
        exact: bool,
    },
    Float(f64),
}

fn number(value: &PyObject, vm: &VirtualMachine) -> Option<Number> {
    if let Some(float) = value.downcast_ref::<PyFloat>() {
        return Some(Number::Float(float.to_f64()));
    }
    let int = value.downcast_ref::<PyInt>()?.as_bigint().to_i64()?;
    let class = value.class();
    let exact = class.is(vm.ctx.types.int_type) || class.is(vm.ctx.types.bool_type);
    Some(Number::Int { value: int, exact })
}

/// The template's parts with its numbers written, or `None` when it is not one of plain conversions, does not
/// take exactly `count` values, or converts a value to a number that is not an int or a float (`number`).
fn plan<'t>(template: &'t str, count: usize, number: impl Fn(usize) -> Option<Number>) -> Option<Vec<Part<'t>>> {
    let mut parts = Vec::new();
    let mut next = 0;
    let mut rest = template;
    while let Some(at) = rest.find('%') {
        if at > 0 {
            parts.push(Part::Literal(&rest[..at]));
        }
        let mut spec = &rest[at + 1..];
        if let Some(after) = spec.strip_prefix('%') {
            parts.push(Part::Literal("%"));
            rest = after;
            continue;
        }
        let (mut left, mut zero, mut alternate, mut sign) = (false, false, false, None);
        loop {
            match *spec.as_bytes().first()? {
                b'-' => left = true,
                b'0' => zero = true,
                b'#' => alternate = true,
                b'+' => sign = Some('+'),
                b' ' => sign = sign.or(Some(' ')),
                _ => break,
            }
            spec = &spec[1..];
        }
        let width = digits(&mut spec, MAX_WIDTH)?.unwrap_or(0);
        // `%.f` is a precision of 0.
        let precision = match spec.strip_prefix('.') {
            Some(after) => {
                spec = after;
                Some(digits(&mut spec, MAX_PRECISION)?.unwrap_or(0))
            }
            None => None,
        };
        let conversion = spec.chars().next()?;
        rest = &spec[conversion.len_utf8()..];
        if next == count {
            return None;
        }
        let index = next;
        next += 1;
        let flags = Spec {
            fill: if zero && !left { '0' } else { ' ' },
            align: Some(if left {
                Align::Left
            } else if zero {
                Align::AfterSign
            } else {
                Align::Right
            }),
            sign,
            alternate,
            width,
            grouping: None,
            precision,
            kind: None,
        };
        let part = match conversion {
            's' | 'r' | 'a' => Part::Converted { index, conversion, left, width, precision },
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' if precision.is_none() => {
                let Number::Int { value: int, .. } = number(index)? else { return None };
                let kind = if matches!(conversion, 'i' | 'u') { 'd' } else { conversion };
                Part::Number(format_int(int, &Spec { kind: Some(kind), ..flags })?)
            }
            'f' | 'F' | 'e' | 'E' => {
                let float = match number(index)? {
                    Number::Float(float) => float,
                    // An int converts exactly up to 2^53; a larger one is RustPython's to round.
                    Number::Int { value, exact: true } if value.unsigned_abs() <= 1 << 53 => value as f64,
                    Number::Int { .. } => return None,
                };
                let precision = Some(precision.unwrap_or(6));
                Part::Number(format_float(float, &Spec { kind: Some(conversion), precision, ..flags })?)
            }
            _ => return None,
        };
        parts.push(part);
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    (next == count).then_some(parts)
}

fn write(parts: &[Part<'_>], template_len: usize, values: &[PyObjectRef], vm: &VirtualMachine) -> PyResult<Wtf8Buf> {
    let mut out = Wtf8Buf::with_capacity(template_len + parts.len() * 16);
    for part in parts {
        let (index, conversion, left, width, precision) = match part {
            Part::Literal(text) => {
                out.push_str(text);
                continue;
            }
            Part::Number(text) => {
                out.push_str(text);
                continue;
            }
            Part::Converted { index, conversion, left, width, precision } => {
                (*index, *conversion, *left, *width, *precision)
            }
        };
        let value = &values[index];
        let text = match conversion {
            's' => value.str(vm)?,
            'r' => value.repr(vm)?,
            _ => builtins::ascii(value.clone(), vm)?,
        };
        let (body, chars) = match precision {
            Some(precision) if precision < text.char_len() => {
                let whole = text.as_wtf8();
                let end = whole.code_point_indices().nth(precision).map_or(whole.len(), |(end, _)| end);
                (&whole[..end], precision)
            }
            _ => (text.as_wtf8(), text.char_len()),
        };
        let padding = width.saturating_sub(chars);
        if !left {
            (0..padding).for_each(|_| out.push_char(' '));
        }
        out.push_wtf8(body);
        if left {
            (0..padding).for_each(|_| out.push_char(' '));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(template: &str, values: &[Option<Number>]) -> Option<Vec<String>> {
        let parts = plan(template, values.len(), |index| values[index])?;
        Some(
            parts
                .into_iter()
                .filter_map(|part| if let Part::Number(text) = part { Some(text) } else { None })
                .collect(),
        )
    }

    #[test]
    fn flags_are_a_format_specs_fill_alignment_and_sign() {
        let ints = [5, -5, 255, 255, 5, 5].map(|value| Some(Number::Int { value, exact: true }));
        assert_eq!(
            numbers("%05d|%-5d|%#x|%#05X|%+ d|% i%%", &ints).unwrap(),
            ["00005", "-5   ", "0xff", "0X0FF", "+5", " 5"]
        );
        let floats =
            [Some(Number::Float(2.5)), Some(Number::Int { value: 3, exact: true }), Some(Number::Float(-1234.5))];
        assert_eq!(numbers("%.f %f %+12.3e", &floats).unwrap(), ["2", "3.000000", "  -1.234e+03"]);
        assert_eq!(
            plan("a%-4sb%.2rc", 2, |_| None).unwrap()[1],
            Part::Converted { index: 0, conversion: 's', left: true, width: 4, precision: None }
        );
    }

    #[test]
    fn anything_else_is_left_to_rustpython() {
        let one = [Some(Number::Int { value: 5, exact: true })];
        for template in ["%(a)s", "%*d", "%c", "%g", "%.3d", "%#f", "%ld", "%", "%d %d", "", "%5%", "%\u{e9}"] {
            assert_eq!(numbers(template, &one), None, "{template:?}");
        }
        assert_eq!(numbers("%d", &[None]), None);
        assert_eq!(numbers("%f", &[None]), None);
        assert_eq!(numbers("%f", &[Some(Number::Int { value: 1 << 60, exact: true })]), None);
        // An int subclass may have a `__float__` of its own.
        assert_eq!(numbers("%f", &[Some(Number::Int { value: 3, exact: false })]), None);
        assert_eq!(numbers("%d", &[Some(Number::Int { value: 3, exact: false })]).unwrap(), ["3"]);
    }
}
