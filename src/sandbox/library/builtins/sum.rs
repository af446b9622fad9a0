//! `sum(iterable, /, start=0)` as CPython 3.12+ computes it: a run of small ints is added in machine words and
//! a run of floats with compensated (Neumaier) summation, so `sum([0.1] * 10) == 1.0`; anything else is added
//! with `+`, item by item. RustPython's `sum` adds every item with `+`, making an int object per item (a
//! third of the time of `sum(i * i for i in range(n))`), and loses the float compensation.

use malachite_bigint::BigInt;
use num_traits::ToPrimitive;
use rustpython_vm::builtins::{PyByteArray, PyBytes, PyFloat, PyInt, PyStr};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};

pub fn sum(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let (iterable, start) = bind(args, vm)?;
    let iter = iterable.get_iter(vm)?;
    let mut total = match start {
        Some(start) => {
            refuse_sequences(&start, vm)?;
            start
        }
        None => vm.ctx.new_int(0).into(),
    };
    let mut next = || -> PyResult<Option<PyObjectRef>> {
        match iter.next(vm)? {
            PyIterReturn::Return(item) => Ok(Some(item)),
            PyIterReturn::StopIteration(_) => Ok(None),
        }
    };
    // The start must be an int itself (a bool start is added with `+`); items may be bools.
    let start = total.class().is(vm.ctx.types.int_type).then(|| total.downcast_ref::<PyInt>()).flatten();
    if let Some(small) = start.and_then(|int| int.as_bigint().to_i64()) {
        match add_ints(small, &mut next, vm)? {
            Ended::Done(result) => return Ok(result),
            Ended::Left(result) => total = result,
        }
    }
    if total.class().is(vm.ctx.types.float_type) {
        let start = total.downcast_ref::<PyFloat>().map_or(0.0, |float| float.to_f64());
        match add_floats(start, &mut next, vm)? {
            Ended::Done(result) => return Ok(result),
            Ended::Left(result) => total = result,
        }
    }
    while let Some(item) = next()? {
        total = vm._add(&total, &item)?;
    }
    Ok(total)
}

/// CPython's argument rules for `sum`: the iterable by position only, `start` by position or name.
fn bind(args: FuncArgs, vm: &VirtualMachine) -> PyResult<(PyObjectRef, Option<PyObjectRef>)> {
    let FuncArgs { args: positional, kwargs } = args;
    let given = positional.len() + kwargs.len();
    if given > 2 {
        return Err(vm.new_type_error(format!("sum() takes at most 2 arguments ({given} given)")));
    }
    let mut positional = positional.into_iter();
    let Some(iterable) = positional.next() else {
        return Err(vm.new_type_error("sum() takes at least 1 positional argument (0 given)"));
    };
    let mut start = positional.next();
    for (name, value) in kwargs {
        if *name != *"start" {
            return Err(vm.new_type_error(format!("sum() got an unexpected keyword argument '{name}'")));
        }
        start = Some(value);
    }
    Ok((iterable, start))
}

fn refuse_sequences(start: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
    let refused = if start.downcast_ref::<PyStr>().is_some() {
        Some("sum() can't sum strings [use ''.join(seq) instead]")
    } else if start.downcast_ref::<PyBytes>().is_some() {
        Some("sum() can't sum bytes [use b''.join(seq) instead]")
    } else if start.downcast_ref::<PyByteArray>().is_some() {
        Some("sum() can't sum bytearray [use b''.join(seq) instead]")
    } else {
        None
    };
    refused.map_or(Ok(()), |message| Err(vm.new_type_error(message)))
}

/// How a fast run ended: the iterable ran out (the sum), or an item it cannot take came (the total so far,
/// that item added with `+`).
enum Ended {
    Done(PyObjectRef),
    Left(PyObjectRef),
}

/// The value of an exact `int` or a `bool` (not of an int subclass, whose `+` may be its own).
fn exact_int<'a>(value: &'a PyObject, vm: &VirtualMachine) -> Option<&'a BigInt> {
    let class = value.class();
    if class.is(vm.ctx.types.int_type) || class.is(vm.ctx.types.bool_type) {
        value.downcast_ref::<PyInt>().map(|int| int.as_bigint())
    } else {
        None
    }
}

fn add_ints(
    mut total: i64,
    next: &mut impl FnMut() -> PyResult<Option<PyObjectRef>>,
    vm: &VirtualMachine,
) -> PyResult<Ended> {
    while let Some(item) = next()? {
        if let Some(added) =
            exact_int(&item, vm).and_then(ToPrimitive::to_i64).and_then(|value| total.checked_add(value))
        {
            total = added;
            continue;
        }
        let total: PyObjectRef = vm.ctx.new_int(total).into();
        return Ok(Ended::Left(vm._add(&total, &item)?));
    }
    Ok(Ended::Done(vm.ctx.new_int(total).into()))
}

fn add_floats(
    start: f64,
    next: &mut impl FnMut() -> PyResult<Option<PyObjectRef>>,
    vm: &VirtualMachine,
) -> PyResult<Ended> {
    let mut total = Compensated::new(start);
    while let Some(item) = next()? {
        if item.class().is(vm.ctx.types.float_type) {
            if let Some(float) = item.downcast_ref::<PyFloat>() {
                total.add(float.to_f64());
                continue;
            }
        }
        if let Some(int) = item.downcast_ref::<PyInt>() {
            let value = int.as_bigint().to_f64().filter(|value| value.is_finite());
            total.add(value.ok_or_else(|| vm.new_overflow_error("int too large to convert to float"))?);
            continue;
        }
        let total: PyObjectRef = vm.ctx.new_float(total.value()).into();
        return Ok(Ended::Left(vm._add(&total, &item)?));
    }
    Ok(Ended::Done(vm.ctx.new_float(total.value()).into()))
}

/// Neumaier's compensated sum: `low` gathers what each addition to `high` rounded away.
struct Compensated {
    high: f64,
    low: f64,
}

impl Compensated {
    fn new(start: f64) -> Self {
        Self { high: start, low: 0.0 }
    }

    fn add(&mut self, value: f64) {
        let sum = self.high + value;
        self.low += if self.high.abs() >= value.abs() { (self.high - sum) + value } else { (value - sum) + self.high };
        self.high = sum;
    }

    /// The compensation is left out when it is zero (keeping the sign of `-0.0`) or not finite (an infinite
    /// or overflowed sum stays what it is instead of becoming NaN).
    fn value(&self) -> f64 {
        if self.low != 0.0 && self.low.is_finite() {
            self.high + self.low
        } else {
            self.high
        }
    }
}
