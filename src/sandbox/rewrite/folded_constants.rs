//! A cell's constants that the compiler folded from arithmetic, made again by the runtime's arithmetic.
//!
//! Why: RustPython's compiler folds `6.0 // 1.5` to `0.0` (its float floor division returns a signed zero
//! whenever the division is exact: `120.0 // 60`, `3 // 0.5`, `7.0 // 7` all fold to zero), folds `-0.5 // -2`
//! to `-0.0`, and folds a complex power (`(1+2j) ** -2`) a few units off in the last place; run with variables,
//! the same operations give CPython's values. CPython folds with the very functions it runs, so a folded
//! constant is always what the expression gives at run time. We do not patch the compiler, so each float,
//! complex or tuple constant a cell's code loads is checked where its source is an expression rather than a
//! literal: the expression (numbers, `+`/`-`/`~` and the binary operators, tuples and lists of them) is
//! evaluated by the VM's own number protocol, and a constant that differs is replaced. Integer arithmetic is
//! exact in both, and anything else is left as compiled.
//!
//! The compiler merges equal constants, so a wrong one may be shared with a literal (`0.0` and a folded
//! `6.0 // 6.0`): it is replaced in place where every load of it wants the same value, and otherwise the load
//! that wants another value is pointed at a constant holding it (one already there, or a new one), and the code
//! laid out again (`cell_code::laid_out`: the index may need another `EXTENDED_ARG`). The functions and classes
//! a cell defines are code objects among its constants, and are checked the same way.

use num_traits::{Signed, ToPrimitive};
use ruff_python_ast::{Expr, Number, Operator, UnaryOp};
use rustpython_vm::builtins::{PyCode, PyComplex, PyFloat, PyInt, PyTuple};
use rustpython_vm::bytecode::{CodeObject, Constant, Instruction};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine};

use super::cell_code::{decode, laid_out, LineTable, Op, Place};

/// The most bits an integer of a re-evaluated expression may have: folding is of small expressions, and a
/// power or shift past this is left as compiled rather than computed again.
const INT_BITS_MAX: u64 = 4096;

/// `code` with each folded constant that differs from its expression's value at run time replaced (see the
/// module doc), or `None` when none does. `source` is the cell's text, which the code's locations point into.
pub fn refolded<C>(code: &CodeObject<C>, source: &str, vm: &VirtualMachine) -> Option<CodeObject<C>>
where
    C: Constant + Clone + From<PyObjectRef> + Into<PyObjectRef> + std::borrow::Borrow<PyObject>,
    C::Name: Clone,
{
    // The source's lines, cut once for the code and all the code objects in it (cut for each, a long
    // module's compile would spend much of its time cutting).
    let lines = std::cell::OnceCell::new();
    refolded_in(code, &|| lines.get_or_init(|| source.split('\n').collect::<Vec<_>>()).as_slice(), vm)
}

fn refolded_in<'s, C>(
    code: &CodeObject<C>,
    lines: &dyn Fn() -> &'s [&'s str],
    vm: &VirtualMachine,
) -> Option<CodeObject<C>>
where
    C: Constant + Clone + From<PyObjectRef> + Into<PyObjectRef> + std::borrow::Borrow<PyObject>,
    C::Name: Clone,
{
    if !code.constants.iter().any(|constant| may_be_folded(std::borrow::Borrow::<PyObject>::borrow(constant), vm)) {
        return None;
    }
    let mut constants: Vec<PyObjectRef> = code.constants.iter().map(|constant| constant.clone().into()).collect();
    let mut changed = false;
    // The code objects of the functions and classes defined here, first.
    for constant in constants.iter_mut() {
        if let Some(inner) = constant.downcast_ref::<PyCode>() {
            if let Some(inner) = refolded_in(&inner.code, lines, vm) {
                *constant = PyCode::new(inner).into_ref(&vm.ctx).into();
                changed = true;
            }
        }
    }
    if let Some(places) = LineTable::decode(code).filter(|places| places.0.len() == code.instructions.len()) {
        // Each constant load, with its expression's value where that differs from the constant.
        let loads: Vec<(Op, Option<PyObjectRef>)> = decode(&code.instructions)?
            .into_iter()
            .filter(|op| matches!(op.op, Instruction::LoadConst { .. }))
            .map(|op| {
                let compiled = constants.get(op.arg as usize)?;
                if !may_be_folded_number(compiled, vm) {
                    return Some((op, None));
                }
                let value = segment(lines(), places.0[op.start + op.prefixes]).and_then(|text| evaluated(&text, vm));
                let differs = value.filter(|value| !same(value, compiled));
                Some((op, differs))
            })
            .collect::<Option<_>>()?;
        // For each constant: whether every load of it wants the one same new value (then it is replaced in
        // place), worked out once (asked of every load for each, the work is quadratic: a list of 80,000
        // folded items would take seconds).
        let mut wanted: std::collections::HashMap<u32, (bool, Option<PyObjectRef>)> = std::collections::HashMap::new();
        for (op, value) in &loads {
            let entry = wanted.entry(op.arg).or_insert((true, None));
            match (value, &entry.1) {
                (None, _) => entry.0 = false,
                (Some(value), None) => entry.1 = Some(value.clone()),
                (Some(value), Some(first)) => entry.0 &= same(value, first),
            }
        }
        // Constants added for loads whose constant is shared with others that keep it, by value.
        let mut added: std::collections::HashMap<(u64, u64), u32> = std::collections::HashMap::new();
        let mut args: Vec<Option<u32>> = vec![None; loads.len()];
        for (k, (op, value)) in loads.iter().enumerate() {
            let Some(value) = value else { continue };
            let index = op.arg as usize;
            if same(value, &constants[index]) {
                continue;
            }
            if wanted.get(&op.arg).is_some_and(|(alone, _)| *alone) {
                constants[index] = value.clone();
                changed = true;
                continue;
            }
            let key = number_bits(value, vm);
            let other = match key.and_then(|key| added.get(&key).copied()) {
                Some(other) => other,
                None => {
                    constants.push(value.clone());
                    let other = u32::try_from(constants.len() - 1).ok()?;
                    if let Some(key) = key {
                        added.insert(key, other);
                    }
                    other
                }
            };
            args[k] = Some(other);
        }
        if args.iter().any(Option::is_some) {
            // Loads pointed at other constants: laid out again, as an index may need another `EXTENDED_ARG`.
            let ops = decode(&code.instructions)?;
            let mut moved = args.into_iter().zip(&loads).filter_map(|(arg, (op, _))| Some((op.start, arg?))).peekable();
            let new = ops
                .iter()
                .map(|op| {
                    let arg = match moved.peek() {
                        Some(&(start, arg)) if start == op.start => {
                            moved.next();
                            arg
                        }
                        _ => op.arg,
                    };
                    (op.op, arg, op.caches)
                })
                .collect();
            let mut rewritten = laid_out(code, &ops, new)?;
            rewritten.constants = constants.into_iter().map(Into::into).collect();
            return Some(rewritten);
        }
    }
    if !changed {
        return None;
    }
    let mut rewritten = code.clone();
    rewritten.constants = constants.into_iter().map(Into::into).collect();
    Some(rewritten)
}

/// Whether a constant could have come from folding arithmetic (or holds code that could have such constants).
fn may_be_folded(constant: &PyObject, vm: &VirtualMachine) -> bool {
    may_be_folded_number(constant, vm) || constant.class().is(vm.ctx.types.code_type)
}

/// Whether a loaded constant could be a folded number, or a tuple of them.
fn may_be_folded_number(constant: &PyObject, vm: &VirtualMachine) -> bool {
    let types = &vm.ctx.types;
    [types.float_type, types.complex_type, types.tuple_type].iter().any(|&class| constant.class().is(class))
}

/// The source text at `place` (lines and UTF-8 byte columns, as the location table counts them).
fn segment<'s>(lines: &[&'s str], place: Place) -> Option<std::borrow::Cow<'s, str>> {
    let Place::At { line, end_line, column: Some(column), end_column: Some(end_column) } = place else { return None };
    let (first, last) = (usize::try_from(line).ok()?.checked_sub(1)?, usize::try_from(end_line).ok()?.checked_sub(1)?);
    let (column, end_column) = (column as usize, end_column as usize);
    if first == last {
        return lines.get(first)?.get(column..end_column).map(std::borrow::Cow::Borrowed);
    }
    let mut text = lines.get(first)?.get(column..)?.to_owned();
    for middle in lines.get(first + 1..last)? {
        text.push('\n');
        text.push_str(middle);
    }
    text.push('\n');
    text.push_str(lines.get(last)?.get(..end_column)?);
    Some(std::borrow::Cow::Owned(text))
}

/// The value of the expression `text` by the VM's number protocol, where it is arithmetic on number literals
/// (and not a literal alone); `None` otherwise, or where it raises.
fn evaluated(text: &str, vm: &VirtualMachine) -> Option<PyObjectRef> {
    // A literal alone, or literals with no operator between them (a tuple of them), hold nothing the compiler
    // computed.
    if !text
        .bytes()
        .any(|byte| matches!(byte, b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'&' | b'|' | b'^' | b'~'))
    {
        return None;
    }
    // In parentheses, as an expression cut from inside brackets may run over lines.
    let parsed = ruff_python_parser::parse_expression(&format!("({text})")).ok()?;
    let expression = parsed.expr();
    if matches!(expression, Expr::NumberLiteral(_)) {
        return None;
    }
    value(expression, vm)
}

fn value(expression: &Expr, vm: &VirtualMachine) -> Option<PyObjectRef> {
    let result = match expression {
        Expr::NumberLiteral(literal) => match &literal.value {
            Number::Int(int) => vm.ctx.new_int(int.as_i64()?).into(),
            Number::Float(float) => vm.ctx.new_float(*float).into(),
            Number::Complex { real, imag } => vm.ctx.new_complex(num_complex::Complex64::new(*real, *imag)).into(),
        },
        Expr::UnaryOp(unary) => {
            let operand = value(&unary.operand, vm)?;
            match unary.op {
                UnaryOp::UAdd => vm._pos(&operand),
                UnaryOp::USub => vm._neg(&operand),
                UnaryOp::Invert => vm._invert(&operand),
                UnaryOp::Not => return None,
            }
            .ok()?
        }
        Expr::BinOp(binary) => {
            let (left, right) = (value(&binary.left, vm)?, value(&binary.right, vm)?);
            // A power or shift of ints is computed only where its result stays within the bound.
            if let (Some(bits), Some(by)) = (int_bits(&left, vm), small_int(&right, vm)) {
                let grows_to = match binary.op {
                    Operator::Pow => bits.saturating_mul(by),
                    Operator::LShift => bits.saturating_add(by),
                    _ => 0,
                };
                if grows_to > INT_BITS_MAX {
                    return None;
                }
            }
            match binary.op {
                Operator::Add => vm._add(&left, &right),
                Operator::Sub => vm._sub(&left, &right),
                Operator::Mult => vm._mul(&left, &right),
                Operator::Div => vm._truediv(&left, &right),
                Operator::FloorDiv => vm._floordiv(&left, &right),
                Operator::Mod => vm._mod(&left, &right),
                Operator::Pow => vm._pow(&left, &right, vm.ctx.none.as_object()),
                Operator::LShift => vm._lshift(&left, &right),
                Operator::RShift => vm._rshift(&left, &right),
                Operator::BitAnd => vm._and(&left, &right),
                Operator::BitOr => vm._or(&left, &right),
                Operator::BitXor => vm._xor(&left, &right),
                Operator::MatMult => return None,
            }
            .ok()?
        }
        Expr::Tuple(tuple) => {
            vm.ctx.new_tuple(tuple.elts.iter().map(|element| value(element, vm)).collect::<Option<_>>()?).into()
        }
        Expr::List(list) => {
            vm.ctx.new_tuple(list.elts.iter().map(|element| value(element, vm)).collect::<Option<_>>()?).into()
        }
        _ => return None,
    };
    (int_bits(&result, vm).unwrap_or(0) <= INT_BITS_MAX).then_some(result)
}

/// The bit length of an int.
fn int_bits(object: &PyObject, vm: &VirtualMachine) -> Option<u64> {
    object.downcast_ref_if_exact::<PyInt>(vm).map(|int| int.as_bigint().bits())
}

/// An int's value where it is not negative and fits (an exponent, a shift); past that, the most there is.
fn small_int(object: &PyObject, vm: &VirtualMachine) -> Option<u64> {
    let int = object.downcast_ref_if_exact::<PyInt>(vm)?.as_bigint();
    Some(if int.is_negative() { 0 } else { int.to_u64().unwrap_or(u64::MAX) })
}

/// A float's or a complex's bits (with its type's mark), to find a constant already added for the same value.
fn number_bits(value: &PyObject, vm: &VirtualMachine) -> Option<(u64, u64)> {
    if let Some(float) = value.downcast_ref_if_exact::<PyFloat>(vm) {
        return Some((float.to_f64().to_bits(), u64::MAX));
    }
    let complex = value.downcast_ref_if_exact::<PyComplex>(vm)?.as_complex();
    // A complex whose imaginary part's bits are all ones (a NaN) is not told apart from a float: not added by key.
    (complex.im.to_bits() != u64::MAX).then(|| (complex.re.to_bits(), complex.im.to_bits()))
}

/// Whether two constants are the same value of the same type, floats and complexes to the bit (a zero's sign
/// included).
fn same(a: &PyObject, b: &PyObject) -> bool {
    if !a.class().is(b.class()) {
        return false;
    }
    if let (Some(a), Some(b)) = (a.downcast_ref::<PyFloat>(), b.downcast_ref::<PyFloat>()) {
        return a.to_f64().to_bits() == b.to_f64().to_bits();
    }
    if let (Some(a), Some(b)) = (a.downcast_ref::<PyComplex>(), b.downcast_ref::<PyComplex>()) {
        let (a, b) = (a.as_complex(), b.as_complex());
        return a.re.to_bits() == b.re.to_bits() && a.im.to_bits() == b.im.to_bits();
    }
    if let (Some(a), Some(b)) = (a.downcast_ref::<PyTuple>(), b.downcast_ref::<PyTuple>()) {
        return a.len() == b.len() && a.iter().zip(b.iter()).all(|(a, b)| same(a, b));
    }
    if let (Some(a), Some(b)) = (a.downcast_ref::<PyInt>(), b.downcast_ref::<PyInt>()) {
        return a.as_bigint() == b.as_bigint();
    }
    a.is(b)
}

/// `compile`, `exec` and `eval` of a `str` give code whose folded constants are made again the same way: the
/// builtins are wrapped (the zygote does it once). `compile` of a `str` or UTF-8 `bytes` source (what the
/// import system compiles a package's sources with) keeps RustPython's code object but for its constants;
/// `exec` and `eval` of a `str` compile it that way first (`eval` without the leading spaces and tabs CPython
/// strips) and run the code. Anything else reaches RustPython's builtins unchanged, so their errors keep
/// their words.
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    use rustpython_vm::builtins::{PyBytes, PyStr};
    use rustpython_vm::function::FuncArgs;

    let compile = {
        let original = vm.builtins.get_attr("compile", vm)?;
        vm.new_function("compile", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let source = args.args.first().cloned().or_else(|| args.kwargs.get("source").cloned());
            let compiled = original.call(args, vm)?;
            let text = source.as_ref().and_then(|source| match source.downcast_ref::<PyStr>() {
                Some(text) => text.to_str().map(str::to_owned),
                // As the compiler reads bytes: UTF-8 unless a coding cookie in the first two lines says otherwise
                // (a latin-1 source read as UTF-8 would put the columns elsewhere and replace a right constant).
                None => source.downcast_ref::<PyBytes>().and_then(|bytes| {
                    let text = std::str::from_utf8(bytes.as_bytes()).ok()?;
                    let declared = text
                        .split('\n')
                        .take(2)
                        .any(|line| line.trim_start().starts_with('#') && line.contains("coding"));
                    (!declared || text.is_ascii()).then(|| text.to_owned())
                }),
            });
            let (Some(text), Some(code)) = (text, compiled.downcast_ref::<PyCode>()) else { return Ok(compiled) };
            Ok(match refolded(&code.code, &text, vm) {
                Some(refolded) => PyCode::new(refolded).into_ref(&vm.ctx).into(),
                None => compiled,
            })
        })
    };
    let compile: PyObjectRef = compile.into();
    vm.builtins.set_attr("compile", compile.clone(), vm)?;
    for (name, mode) in [("exec", "exec"), ("eval", "eval")] {
        let original = vm.builtins.get_attr(name, vm)?;
        let compile = compile.clone();
        let wrapped = vm.new_function(name, move |mut args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let text = args
                .args
                .first()
                .and_then(|source| source.downcast_ref::<PyStr>().and_then(|text| text.to_str().map(str::to_owned)));
            if let Some(text) = text {
                let text = if mode == "eval" { text.trim_start_matches([' ', '\t']).to_owned() } else { text };
                let code =
                    compile.call((vm.ctx.new_str(text), vm.ctx.new_str("<string>"), vm.ctx.new_str(mode)), vm)?;
                args.args[0] = code;
            }
            original.call(args, vm)
        });
        vm.builtins.set_attr(name, wrapped, vm)?;
    }
    Ok(())
}
