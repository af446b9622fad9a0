//! `__format__` of `int`, `float` and `str` for the specs reports are written with (`f'{i:>6}'`, `f'{n:,}'`,
//! `f'{x:.2f}'`, `f'{r:.1%}'`, `f'{name:<20}'`, `format(v, '08x')`): RustPython parses the spec into its
//! general form, writes the digits through `fmt` and malachite, and copies the text code point by code point
//! into a new string, several times CPython's cost for a value or a padded str. Here a spec is read in one
//! pass and the text written once.
//!
//! Only what is certain to come out as CPython's is done here: an int that fits in 64 bits with no type or
//! `d x X o b`; a finite float with `f F % e E`; a str with no type or `s`; fill, alignment, sign, width,
//! `,`/`_` grouping, `#` on ints, precision on floats and strs. Anything else (an empty spec, `n`, `c`, `g`, a
//! float with no type, `z`, zero padding with grouping, a big int, a str with surrogates, an invalid spec) goes
//! to RustPython's own method, which keeps its results and its errors. Float digits come from Rust's exact
//! formatting, which rounds the binary value's decimal expansion half to even, as CPython's `dtoa` does.

use std::fmt::Write;

use crate::sandbox::library::method::fast_method;
use num_traits::ToPrimitive;
use rustpython_vm::builtins::{PyFloat, PyInt, PyStr, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, Py, PyObject, PyResult, VirtualMachine};

/// A width above this goes to RustPython's method (and to the memory limit there): no report pads so far.
pub(super) const MAX_WIDTH: usize = 1 << 16;
/// Likewise a precision: Rust writes any precision exactly, but a long one is no report's.
pub(super) const MAX_PRECISION: usize = 400;

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    replace(vm, vm.ctx.types.int_type, |value, spec| {
        let int = value.downcast_ref::<PyInt>()?;
        format_int(int.as_bigint().to_i64()?, &Spec::parse(spec, true)?)
    })?;
    replace(vm, vm.ctx.types.float_type, |value, spec| {
        let float = value.downcast_ref::<PyFloat>()?;
        format_float(float.to_f64(), &Spec::parse(spec, true)?)
    })?;
    replace(vm, vm.ctx.types.str_type, |value, spec| {
        let text = value.downcast_ref::<PyStr>()?;
        format_str(text.to_str()?, text.char_len(), &Spec::parse(spec, false)?)
    })
}

/// Put a `__format__` on `class` that asks `fast` first and calls the class's own method when it declines.
fn replace(
    vm: &VirtualMachine,
    class: &'static Py<PyType>,
    fast: fn(&PyObject, &str) -> Option<String>,
) -> PyResult<()> {
    let name = vm.ctx.intern_str("__format__");
    let original = class.as_object().get_attr(name, vm)?;
    let method = fast_method(vm, "__format__", class, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        if let ([value, spec], true) = (args.args.as_slice(), args.kwargs.is_empty()) {
            let text = spec.downcast_ref::<PyStr>().and_then(|spec| spec.to_str()).filter(|spec| !spec.is_empty());
            if let Some(formatted) = text.and_then(|spec| fast(value, spec)) {
                return Ok(vm.ctx.new_str(formatted).into());
            }
        }
        original.call(args, vm)
    });
    class.set_attr(name, method.into());
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Align {
    Left,
    Right,
    Center,
    /// `=`: the padding goes between the sign (and prefix) and the digits.
    AfterSign,
}

impl Align {
    fn from_char(c: char) -> Option<Self> {
        match c {
            '<' => Some(Self::Left),
            '>' => Some(Self::Right),
            '^' => Some(Self::Center),
            '=' => Some(Self::AfterSign),
            _ => None,
        }
    }
}

/// A format spec as CPython's `parse_internal_render_format_spec` reads it, for the forms handled here.
#[derive(Debug, PartialEq)]
pub(super) struct Spec {
    pub fill: char,
    pub align: Option<Align>,
    /// `+`, `-` or ` ` as written (a number's `-` is its default: only negative numbers get a sign; a str
    /// takes none).
    pub sign: Option<char>,
    pub alternate: bool,
    pub width: usize,
    pub grouping: Option<char>,
    pub precision: Option<usize>,
    pub kind: Option<char>,
}

impl Spec {
    /// `None` for anything outside `[[fill]align][sign]["#"]["0"][width][grouping]["." precision][type]`.
    fn parse(spec: &str, numeric: bool) -> Option<Self> {
        let mut chars = spec.chars();
        let first = chars.next()?;
        let (mut fill, mut align, mut rest) = match chars.next().and_then(Align::from_char) {
            Some(align) => (Some(first), Some(align), chars.as_str()),
            None => match Align::from_char(first) {
                Some(align) => (None, Some(align), &spec[1..]),
                None => (None, None, spec),
            },
        };
        let mut take = |wanted: &[u8]| -> Option<char> {
            let byte = *rest.as_bytes().first()?;
            wanted.contains(&byte).then(|| {
                rest = &rest[1..];
                byte as char
            })
        };
        let sign = take(b"+- ");
        let alternate = take(b"#").is_some();
        // CPython's "0" before the width: zero fill, and for a number sign-aware when no alignment was given.
        if fill.is_none() && take(b"0").is_some() {
            fill = Some('0');
            if numeric {
                align = align.or(Some(Align::AfterSign));
            }
        }
        let width = digits(&mut rest, MAX_WIDTH)?.unwrap_or(0);
        let grouping = match rest.as_bytes().first() {
            Some(&b @ (b',' | b'_')) => {
                rest = &rest[1..];
                Some(b as char)
            }
            _ => None,
        };
        let precision = match rest.strip_prefix('.') {
            Some(after) => {
                rest = after;
                Some(digits(&mut rest, MAX_PRECISION)??)
            }
            None => None,
        };
        let mut tail = rest.chars();
        let kind = tail.next();
        if tail.next().is_some() || kind.is_some_and(|kind| !kind.is_ascii_alphabetic() && kind != '%') {
            return None;
        }
        Some(Self { fill: fill.unwrap_or(' '), align, sign, alternate, width, grouping, precision, kind })
    }

    /// Zero padding that CPython writes with separators in it (`f'{1234:010,}'` is `00,001,234`).
    fn pads_grouped_zeros(&self) -> bool {
        self.grouping.is_some() && self.fill == '0' && self.align == Some(Align::AfterSign)
    }
}

/// The decimal digits at the front of `rest`, taken off it: `Some(None)` when there are none, `None` when
/// they pass `max`.
pub(super) fn digits(rest: &mut &str, max: usize) -> Option<Option<usize>> {
    let count = rest.bytes().take_while(u8::is_ascii_digit).count();
    if count == 0 {
        return Some(None);
    }
    let (number, after) = rest.split_at(count);
    *rest = after;
    number.parse::<usize>().ok().filter(|&n| n <= max).map(Some)
}

pub(super) fn format_int(value: i64, spec: &Spec) -> Option<String> {
    let (radix, upper, prefix) = match spec.kind {
        None | Some('d') => (10, false, ""),
        Some('x') => (16, false, "0x"),
        Some('X') => (16, true, "0X"),
        Some('o') => (8, false, "0o"),
        Some('b') => (2, false, "0b"),
        _ => return None,
    };
    if spec.precision.is_some() || (spec.grouping == Some(',') && radix != 10) || spec.pads_grouped_zeros() {
        return None;
    }
    let magnitude = value.unsigned_abs();
    let mut body = String::with_capacity(24);
    match (radix, upper) {
        (10, _) => write!(body, "{magnitude}"),
        (16, false) => write!(body, "{magnitude:x}"),
        (16, true) => write!(body, "{magnitude:X}"),
        (8, _) => write!(body, "{magnitude:o}"),
        _ => write!(body, "{magnitude:b}"),
    }
    .ok()?;
    if let Some(separator) = spec.grouping {
        body = grouped(&body, body.len(), separator, if radix == 10 { 3 } else { 4 });
    }
    let prefix = if spec.alternate { prefix } else { "" };
    Some(pad(spec, value < 0, prefix, &body))
}

pub(super) fn format_float(value: f64, spec: &Spec) -> Option<String> {
    if !value.is_finite() || spec.alternate || spec.pads_grouped_zeros() {
        return None;
    }
    let precision = spec.precision.unwrap_or(6);
    let magnitude = value.abs();
    let mut body = String::with_capacity(24);
    match spec.kind? {
        'f' | 'F' => fixed(magnitude, precision, &mut body),
        '%' => {
            // CPython multiplies in floating point, then writes it as `f` does.
            let scaled = magnitude * 100.0;
            if !scaled.is_finite() {
                return None;
            }
            fixed(scaled, precision, &mut body);
            body.push('%');
        }
        kind @ ('e' | 'E') => {
            // Rust writes `1.5e3`; CPython `1.5e+03`: a sign always, at least two digits.
            let written = format!("{magnitude:.precision$e}");
            let (mantissa, exponent) = written.split_once('e')?;
            let exponent: i32 = exponent.parse().ok()?;
            let sign = if exponent < 0 { '-' } else { '+' };
            write!(body, "{mantissa}{kind}{sign}{:02}", exponent.unsigned_abs()).ok()?;
        }
        _ => return None,
    }
    if let Some(separator) = spec.grouping {
        let whole = body.bytes().take_while(u8::is_ascii_digit).count();
        body = grouped(&body, whole, separator, 3);
    }
    Some(pad(spec, value.is_sign_negative(), "", &body))
}

/// A finite, non-negative `value` with `precision` decimals, rounded as its exact binary value rounds (half
/// to even), as CPython's `dtoa` rounds. Rust's exact mode gives the same digits but falls back to big-number
/// arithmetic whenever its fast method cannot decide, which is most values (`i / 7` to three decimals: most
/// of the format's time). Below 2^53 the value is `mantissa / 2^shift`, so `value * 10^precision` is a
/// 128-bit integer shifted right, and its rounding is decided by the bits shifted out.
fn fixed(value: f64, precision: usize, out: &mut String) {
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, power) = if exponent == 0 { (fraction, -1074) } else { (fraction | 1 << 52, exponent - 1075) };
    // 2^53 * 10^22 < 2^127: the product fits.
    if power > 0 || precision > 22 {
        let _ = write!(out, "{value:.precision$}");
        return;
    }
    let scaled = u128::from(mantissa) * 10u128.pow(precision as u32);
    let shift = power.unsigned_abs();
    let rounded = match shift {
        0 => scaled,
        // Half a unit is 2^(shift - 1) >= 2^127 > scaled: rounds to zero.
        128.. => 0,
        _ => {
            let whole = scaled >> shift;
            let rest = scaled - (whole << shift);
            let half = 1u128 << (shift - 1);
            whole + u128::from(rest > half || (rest == half && whole & 1 == 1))
        }
    };
    let digits = rounded.to_string();
    if precision == 0 {
        out.push_str(&digits);
    } else if digits.len() <= precision {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', precision - digits.len()));
        out.push_str(&digits);
    } else {
        let (whole, decimals) = digits.split_at(digits.len() - precision);
        out.push_str(whole);
        out.push('.');
        out.push_str(decimals);
    }
}

/// A str: its first `precision` code points, aligned left by default; no sign, `#`, grouping or `=` (CPython's
/// errors for those come from RustPython's method).
fn format_str(text: &str, chars: usize, spec: &Spec) -> Option<String> {
    let plain = spec.sign.is_none() && !spec.alternate && spec.grouping.is_none();
    if !plain || !matches!(spec.kind, None | Some('s')) || spec.align == Some(Align::AfterSign) {
        return None;
    }
    let (text, chars) = match spec.precision {
        Some(precision) if precision < chars => match text.char_indices().nth(precision) {
            Some((end, _)) => (&text[..end], precision),
            None => (text, chars),
        },
        _ => (text, chars),
    };
    Some(padded(spec, Align::Left, None, "", text, chars))
}

/// `text` with `separator` every `every` digits of its first `whole` (digit) bytes, counted from their end.
fn grouped(text: &str, whole: usize, separator: char, every: usize) -> String {
    let (digits, after) = text.split_at(whole);
    let mut out = String::with_capacity(text.len() + whole / every + 1);
    for (at, digit) in digits.char_indices() {
        if at > 0 && (whole - at).is_multiple_of(every) {
            out.push(separator);
        }
        out.push(digit);
    }
    out.push_str(after);
    out
}

/// Sign, prefix and the ASCII body of a number padded to the spec's width with its fill, aligned right by
/// default.
fn pad(spec: &Spec, negative: bool, prefix: &str, body: &str) -> String {
    let sign = if negative { Some('-') } else { spec.sign.filter(|&sign| sign != '-') };
    padded(spec, Align::Right, sign, prefix, body, body.len())
}

/// `sign`, `prefix` and `body` (`body_chars` code points) padded to the spec's width.
fn padded(spec: &Spec, default: Align, sign: Option<char>, prefix: &str, body: &str, body_chars: usize) -> String {
    let length = sign.map_or(0, |_| 1) + prefix.len() + body_chars;
    let padding = spec.width.saturating_sub(length);
    let (before, between, after) = match spec.align.unwrap_or(default) {
        Align::Left => (0, 0, padding),
        Align::Right => (padding, 0, 0),
        Align::Center => (padding / 2, 0, padding - padding / 2),
        Align::AfterSign => (0, padding, 0),
    };
    let mut out = String::with_capacity(body.len() + prefix.len() + 1 + padding * spec.fill.len_utf8());
    out.extend(std::iter::repeat_n(spec.fill, before));
    out.extend(sign);
    out.push_str(prefix);
    out.extend(std::iter::repeat_n(spec.fill, between));
    out.push_str(body);
    out.extend(std::iter::repeat_n(spec.fill, after));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(value: i64, spec: &str) -> Option<String> {
        format_int(value, &Spec::parse(spec, true)?)
    }

    fn float(value: f64, spec: &str) -> Option<String> {
        format_float(value, &Spec::parse(spec, true)?)
    }

    fn string(text: &str, spec: &str) -> Option<String> {
        format_str(text, text.chars().count(), &Spec::parse(spec, false)?)
    }

    #[test]
    fn specs_read_as_cpython_reads_them() {
        // The "0" flag makes zero fill and sign-aware alignment only when no fill was given.
        assert_eq!(int(-5, "05").as_deref(), Some("-0005"));
        assert_eq!(int(5, "<05").as_deref(), Some("50000"));
        assert_eq!(int(255, "#=10x").as_deref(), Some("########ff"));
        assert_eq!(int(-255, "#010x").as_deref(), Some("-0x00000ff"));
        assert_eq!(int(5, "x<+#8X").as_deref(), Some("+0X5xxxx"));
        assert_eq!(int(3, "^6").as_deref(), Some("  3   "));
        assert_eq!(int(-1_234_567, ",").as_deref(), Some("-1,234,567"));
        assert_eq!(int(0x1234_5678, "_x").as_deref(), Some("1234_5678"));
        assert_eq!(float(12345.678, "_.2f").as_deref(), Some("12_345.68"));
        assert_eq!(float(1234.5, ".3e").as_deref(), Some("1.234e+03"));
        assert_eq!(float(1e-7, "E").as_deref(), Some("1.000000E-07"));
        assert_eq!(float(-0.001, ".2f").as_deref(), Some("-0.00"));
        assert_eq!(float(0.5, ".0%").as_deref(), Some("50%"));
        // Exact values, a decimal written as it reads but stored just below its half, and values beyond 2^53.
        assert_eq!(float(27_164.5, ".2f").as_deref(), Some("27164.50"));
        assert_eq!(float(3.0, ".0f").as_deref(), Some("3"));
        assert_eq!(float(2.675, ".2f").as_deref(), Some("2.67"));
        assert_eq!(float(1e23, ".1f").as_deref(), Some("99999999999999991611392.0"));
        assert_eq!(float(0.1, ".20f").as_deref(), Some("0.10000000000000000555"));
        // A str: left by default, and its "0" is a fill only.
        assert_eq!(string("ab", "05").as_deref(), Some("ab000"));
        assert_eq!(string("h\u{e9}llo", "*^9.3").as_deref(), Some("***h\u{e9}l***"));
        assert_eq!(string("abc", ">2").as_deref(), Some("abc"));
    }

    #[test]
    fn fixed_digits_are_the_exact_rounding() {
        // Values as reports hold them (few decimals, halves and quarters, ratios), subnormals and arbitrary bit
        // patterns, at precisions on both sides of the 128-bit path's limit, against Rust's exact formatting.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let bits = next();
            let value = match bits % 5 {
                4 => f64::from_bits(bits >> 13),
                0 => (bits >> 20) as f64 / 10f64.powi((bits % 7) as i32),
                1 => (bits >> 40) as f64 * 0.5 + (bits >> 60) as f64 * 0.25,
                2 => (bits >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((bits % 16) as i32),
                _ => f64::from_bits(bits >> 2),
            };
            if !value.is_finite() {
                continue;
            }
            for precision in [0, 1, 2, 3, 6, 10, 17, 22, 30] {
                let mut ours = String::new();
                fixed(value, precision, &mut ours);
                assert_eq!(ours, format!("{value:.precision$}"), "{value:e} to {precision}");
            }
        }
    }

    #[test]
    fn what_is_not_certain_is_declined() {
        for spec in ["010,", "0=10,", "n", "c", ".2", "z.2f", "x,", ".3d", "ff", "1000000000d", "\u{e9}"] {
            assert_eq!(int(1234, spec), None, "{spec:?}");
        }
        for spec in ["", ">10", ".3g", "#.0f", "010,.2f", "n"] {
            assert_eq!(float(1.5, spec), None, "{spec:?}");
        }
        for spec in ["+", "=5", "#", ",", "d", "5,"] {
            assert_eq!(string("ab", spec), None, "{spec:?}");
        }
        assert_eq!(float(f64::NAN, ".2f"), None);
        assert_eq!(float(f64::INFINITY, "e"), None);
    }
}
