//! Protocol `Value`s <-> sandbox objects (RustPython), inside the session process (dates, decimals and
//! UUIDs from the host are made by the sandbox's own modules). Variables a run binds
//! are all converted before any is bound, so a bad one leaves the session untouched; large str/bytes the
//! host marks with `Keep` are remembered for the next run, where `Kept` binds the same object again.

use std::collections::HashMap;

use rustpython_vm::builtins::{
    PyBytes as VmBytes, PyDict as VmDict, PyFloat as VmFloat, PyFrozenSet as VmFrozenSet, PyInt as VmInt,
    PyList as VmList, PySet as VmSet, PyStr as VmStr, PyTuple as VmTuple,
};
use rustpython_vm::function::{FuncArgs, KwArgs};
use rustpython_vm::{AsObject, PyObjectRef, PyPayload, VirtualMachine};

use crate::protocol::conversion::{index_segment, ConvertError, ConvertErrorKind, Direction};
use crate::protocol::value::{Value, MAX_DEPTH, MAX_VALUES};
use crate::protocol::when::{Clock, When};

type Result<T> = std::result::Result<T, ConvertError>;

/// The large values kept from the previous run, by the host's key.
#[derive(Default)]
pub struct KeptValues {
    previous: HashMap<u64, PyObjectRef>,
}

impl KeptValues {
    /// Every variable as a sandbox object, or the first failure described for the model; the values kept
    /// from now on are exactly those this run marked.
    pub fn bind(
        &mut self,
        variables: Vec<(String, Value)>,
        vm: &VirtualMachine,
    ) -> std::result::Result<Vec<(String, PyObjectRef)>, String> {
        let mut kept = HashMap::new();
        let mut bindings = Vec::with_capacity(variables.len());
        for (name, value) in variables {
            let object = match value {
                Value::Kept(key) => {
                    let object = self.previous.get(&key).cloned().ok_or_else(|| {
                        format!("variable '{name}': the kept value {key} is not known to this session")
                    })?;
                    kept.insert(key, object.clone());
                    object
                }
                Value::Keep(key, inner) => {
                    let object =
                        into_sandbox(*inner, vm).map_err(|e| e.describe(&format!("variable '{name}': {name}")))?;
                    kept.insert(key, object.clone());
                    object
                }
                value => into_sandbox(value, vm).map_err(|e| e.describe(&format!("variable '{name}': {name}")))?,
            };
            bindings.push((name, object));
        }
        self.previous = kept;
        Ok(bindings)
    }
}

/// Protocol data as a sandbox object, taking over a str's or bytes' buffer (a large variable is not copied
/// once more), and an array's data in a library value's parts.
pub fn into_sandbox(value: Value, vm: &VirtualMachine) -> Result<PyObjectRef> {
    let items = |values: Vec<Value>| -> Result<Vec<PyObjectRef>> {
        let each = values.into_iter().enumerate();
        each.map(|(i, v)| into_sandbox(v, vm).map_err(|e| e.within(index_segment(i)))).collect()
    };
    match value {
        Value::Str(s) => Ok(vm.ctx.new_str(s).into()),
        Value::Bytes(b) => Ok(vm.ctx.new_bytes(b).into()),
        Value::Library(kind, parts) => library_in_sandbox(&kind, into_sandbox(*parts, vm)?, vm),
        Value::Tuple(values) => Ok(vm.ctx.new_tuple(items(values)?).into()),
        Value::List(values) => Ok(vm.ctx.new_list(items(values)?).into()),
        other => to_sandbox(&other, vm),
    }
}

/// A value of numpy's or pandas' from the host, made by the session's CPython from its parts (sandbox objects).
fn library_in_sandbox(kind: &str, parts: PyObjectRef, vm: &VirtualMachine) -> Result<PyObjectRef> {
    bridge_call(vm, "library_value", vec![vm.ctx.new_str(kind).into(), parts])
}

/// Protocol data as a sandbox object.
pub fn to_sandbox(value: &Value, vm: &VirtualMachine) -> Result<PyObjectRef> {
    let items = |values: &[Value]| -> Result<Vec<PyObjectRef>> {
        values.iter().enumerate().map(|(i, v)| to_sandbox(v, vm).map_err(|e| e.within(index_segment(i)))).collect()
    };
    Ok(match value {
        Value::None => vm.ctx.none(),
        Value::Bool(b) => vm.ctx.new_bool(*b).into(),
        Value::Int(i) => vm.ctx.new_int(*i).into(),
        Value::BigInt(bytes) => vm.ctx.new_bigint(&malachite_bigint::BigInt::from_signed_bytes_le(bytes)).into(),
        Value::Float(f) => vm.ctx.new_float(*f).into(),
        Value::Str(s) => vm.ctx.new_str(s.as_str()).into(),
        Value::Bytes(b) => vm.ctx.new_bytes(b.clone()).into(),
        Value::List(values) => vm.ctx.new_list(items(values)?).into(),
        Value::Tuple(values) => vm.ctx.new_tuple(items(values)?).into(),
        Value::Set(values) => {
            let set = VmSet::default().into_ref(&vm.ctx);
            for item in items(values)? {
                set.add(item, vm).map_err(|e| sandbox_failed(vm, e))?;
            }
            set.into()
        }
        Value::FrozenSet(values) => {
            VmFrozenSet::from_iter(vm, items(values)?).map_err(|e| sandbox_failed(vm, e))?.into_ref(&vm.ctx).into()
        }
        Value::Dict(pairs) => {
            let dict = vm.ctx.new_dict();
            for (i, (k, v)) in pairs.iter().enumerate() {
                let k = to_sandbox(k, vm).map_err(|e| e.within(index_segment(i)))?;
                let v = to_sandbox(v, vm).map_err(|e| e.within(index_segment(i)))?;
                dict.set_item(&*k, v, vm).map_err(|e| sandbox_failed(vm, e).within(index_segment(i)))?;
            }
            dict.into()
        }
        Value::When(when) => when_in_sandbox(when, vm)?,
        Value::Decimal(text) => {
            construct(vm, "decimal", "Decimal", vec![vm.ctx.new_str(text.as_str()).into()], vec![])?
        }
        Value::Uuid(int) => {
            let int = vm.ctx.new_bigint(&malachite_bigint::BigInt::from(*int)).into();
            construct(vm, "uuid", "UUID", vec![], vec![("int", int)])?
        }
        Value::Keep(..) | Value::Kept(_) => {
            return Err(ConvertError::new(ConvertErrorKind::Failed("a kept value can only be a variable".into())))
        }
        Value::Host(_) => {
            return Err(ConvertError::new(ConvertErrorKind::Failed("a host buffer only exists in the host".into())))
        }
        Value::Library(kind, parts) => library_in_sandbox(kind, to_sandbox(parts, vm)?, vm)?,
    })
}

/// A function of the bridge to the session's CPython (`_sandbox_cpython.py`), which makes and takes apart the
/// values of numpy and pandas.
fn bridge_call(vm: &VirtualMachine, name: &'static str, args: Vec<PyObjectRef>) -> Result<PyObjectRef> {
    let failed = |e| sandbox_failed(vm, e);
    let function = vm.import("_sandbox_cpython", 0).and_then(|bridge| bridge.get_attr(name, vm)).map_err(failed)?;
    function.call(args, vm).map_err(failed)
}

/// `obj` as a `Value::Library` when it is a value of numpy's or pandas' (an object of the session's CPython,
/// whose class is a mirror: see `_sandbox_cpython.py`); None for any other object.
fn library_value(obj: &PyObjectRef, vm: &VirtualMachine, depth: usize, seen: &mut usize) -> Result<Option<Value>> {
    if obj.class().get_attr(vm.ctx.intern_str("_cpy_type")).is_none() {
        return Ok(None);
    }
    let found = bridge_call(vm, "library_parts", vec![obj.clone()])?;
    if vm.is_none(&found) {
        return Ok(None);
    }
    let failed = |e| sandbox_failed(vm, e);
    let pair = found.downcast_ref::<VmTuple>().filter(|pair| pair.len() == 2).ok_or_else(|| {
        ConvertError::new(ConvertErrorKind::Failed("the bridge took a library value apart wrongly".into()))
    })?;
    let kind = pair[0].str(vm).map_err(failed)?.to_string_lossy().into_owned();
    let parts = to_value_at(&pair[1], vm, depth + 1, seen)?;
    Ok(Some(Value::Library(kind, Box::new(parts))))
}

/// A date, time or duration, made by the sandbox's own `datetime` (which checks every field).
fn when_in_sandbox(when: &When, vm: &VirtualMachine) -> Result<PyObjectRef> {
    let int = |n: i64| -> PyObjectRef { vm.ctx.new_int(n).into() };
    let clock = |clock: &Clock| -> Result<(Vec<PyObjectRef>, Vec<(&'static str, PyObjectRef)>)> {
        let mut keywords = vec![("fold", int(i64::from(clock.fold)))];
        if let Some(offset) = clock.utc_offset_micros {
            let delta = construct(vm, "datetime", "timedelta", vec![], vec![("microseconds", int(offset))])?;
            keywords.push(("tzinfo", construct(vm, "datetime", "timezone", vec![delta], vec![])?));
        }
        Ok((vec![int(clock.hour), int(clock.minute), int(clock.second), int(clock.microsecond)], keywords))
    };
    match when {
        When::Date { year, month, day } => {
            construct(vm, "datetime", "date", vec![int(*year), int(*month), int(*day)], vec![])
        }
        When::Time(time) => {
            let (args, keywords) = clock(time)?;
            construct(vm, "datetime", "time", args, keywords)
        }
        When::DateTime { year, month, day, clock: time } => {
            let (time_args, keywords) = clock(time)?;
            let args = [int(*year), int(*month), int(*day)].into_iter().chain(time_args).collect();
            construct(vm, "datetime", "datetime", args, keywords)
        }
        When::TimeDelta { days, seconds, microseconds } => {
            let keywords = vec![("days", int(*days)), ("seconds", int(*seconds)), ("microseconds", int(*microseconds))];
            construct(vm, "datetime", "timedelta", vec![], keywords)
        }
    }
}

/// `module.class(*args, **keywords)` in the sandbox (the module imported if it is not yet).
fn construct(
    vm: &VirtualMachine,
    module: &'static str,
    class: &'static str,
    args: Vec<PyObjectRef>,
    keywords: Vec<(&'static str, PyObjectRef)>,
) -> Result<PyObjectRef> {
    let failed = |e| sandbox_failed(vm, e);
    let class = vm.import(module, 0).and_then(|m| m.get_attr(class, vm)).map_err(failed)?;
    class.call(FuncArgs::new(args, keywords.into_iter().collect::<KwArgs>()), vm).map_err(failed)
}

/// A sandbox object as protocol data, or where and why it cannot leave. Runs no sandbox code (a library value is
/// taken apart by the bridge and its library).
pub fn to_value(obj: &PyObjectRef, vm: &VirtualMachine) -> Result<Value> {
    to_value_counted(obj, vm, &std::cell::Cell::new(0))
}

/// `to_value` for one of several values sent in one message, counted together in `seen` (the host takes
/// at most `MAX_VALUES` values from one message).
pub fn to_value_counted(obj: &PyObjectRef, vm: &VirtualMachine, seen: &std::cell::Cell<usize>) -> Result<Value> {
    let mut count = seen.get();
    let value = to_value_at(obj, vm, 0, &mut count);
    seen.set(count);
    value
}

fn to_value_at(obj: &PyObjectRef, vm: &VirtualMachine, depth: usize, seen: &mut usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(ConvertError::new(ConvertErrorKind::TooDeep));
    }
    *seen += 1;
    if *seen > MAX_VALUES {
        return Err(ConvertError::new(ConvertErrorKind::TooLarge));
    }
    let items = |values: &[PyObjectRef], seen: &mut usize| -> Result<Vec<Value>> {
        values
            .iter()
            .enumerate()
            .map(|(i, item)| to_value_at(item, vm, depth + 1, seen).map_err(|e| e.within(index_segment(i))))
            .collect()
    };
    if vm.is_none(obj) {
        return Ok(Value::None);
    }
    if obj.class().is(vm.ctx.types.bool_type) {
        return Ok(Value::Bool(obj.is(&vm.ctx.true_value)));
    }
    if !is_plain_class(obj, vm) {
        if let Some(library) = library_value(obj, vm, depth, seen)? {
            return Ok(library);
        }
    }
    if let Some(int) = obj.downcast_ref::<VmInt>() {
        let big = int.as_bigint();
        return Ok(match i64::try_from(big) {
            Ok(small) => Value::Int(small),
            Err(_) => Value::BigInt(big.to_signed_bytes_le()),
        });
    }
    if let Some(f) = obj.downcast_ref::<VmFloat>() {
        return Ok(Value::Float(f.to_f64()));
    }
    if let Some(s) = obj.downcast_ref::<VmStr>() {
        return Ok(Value::Str(s.to_string_lossy().into_owned()));
    }
    if let Some(b) = obj.downcast_ref::<VmBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Some(list) = obj.downcast_ref::<VmList>() {
        let values: Vec<PyObjectRef> = list.borrow_vec().to_vec();
        return Ok(Value::List(items(&values, seen)?));
    }
    if let Some(tuple) = obj.downcast_ref::<VmTuple>() {
        return Ok(Value::Tuple(items(tuple.as_slice(), seen)?));
    }
    if let Some(set) = obj.downcast_ref::<VmSet>() {
        return Ok(Value::Set(items(&set.elements(), seen)?));
    }
    if let Some(set) = obj.downcast_ref::<VmFrozenSet>() {
        return Ok(Value::FrozenSet(items(&set.elements(), seen)?));
    }
    if let Some(dict) = obj.downcast_ref::<VmDict>() {
        let mut pairs = Vec::new();
        for (key, value) in dict.items_vec() {
            let segment = || format!("[{}]", describe_sandbox_key(&key, vm));
            let k = to_value_at(&key, vm, depth + 1, seen).map_err(|e| e.within(segment()))?;
            let v = to_value_at(&value, vm, depth + 1, seen).map_err(|e| e.within(segment()))?;
            pairs.push((k, v));
        }
        return Ok(Value::Dict(pairs));
    }
    Err(ConvertError::new(ConvertErrorKind::Unsupported {
        type_name: obj.class().name().to_string(),
        direction: Direction::OutOfSandbox,
    }))
}

/// Whether `obj`'s class is exactly one of the plain types, so it cannot be a mirror of a library's class (a
/// subclass can: `np.float64` is a float): the common case skips looking for a mirror's attribute.
fn is_plain_class(obj: &PyObjectRef, vm: &VirtualMachine) -> bool {
    let class = obj.class();
    let types = &vm.ctx.types;
    [
        types.int_type,
        types.float_type,
        types.str_type,
        types.bytes_type,
        types.list_type,
        types.tuple_type,
        types.dict_type,
        types.set_type,
        types.frozenset_type,
    ]
    .iter()
    .any(|plain| class.is(*plain))
}

fn sandbox_failed(vm: &VirtualMachine, exc: rustpython_vm::builtins::PyBaseExceptionRef) -> ConvertError {
    let message = exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    ConvertError::new(ConvertErrorKind::Failed(format!("{}: {message}", exc.class().name())))
}

/// A dict key for an error path, without running sandbox code (a user `__repr__` could loop while the GIL
/// is held): strings and numbers as themselves, anything else by its type.
fn describe_sandbox_key(key: &PyObjectRef, vm: &VirtualMachine) -> String {
    if let Some(s) = key.downcast_ref::<VmStr>() {
        let text = s.to_string_lossy();
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'").replace('\n', "\\n"))
    } else if key.downcast_ref::<VmInt>().is_some() && key.class().is(vm.ctx.types.int_type) {
        key.downcast_ref::<VmInt>().map(|i| i.as_bigint().to_string()).unwrap_or_default()
    } else {
        format!("<{} key>", key.class().name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::prepare::with_test_vm;

    fn sample() -> Value {
        Value::List(vec![
            Value::None,
            Value::Bool(false),
            Value::Int(i64::MIN),
            Value::BigInt(vec![0, 0, 0, 0, 0, 0, 0, 0, 0x80]),
            Value::Float(-0.5),
            Value::Str("ü".into()),
            Value::Bytes(vec![1]),
            Value::Tuple(vec![Value::Dict(vec![(Value::Str("k".into()), Value::FrozenSet(vec![Value::Int(1)]))])]),
            Value::Set(vec![Value::Str("s".into())]),
        ])
    }

    #[test]
    fn values_round_trip_through_the_sandbox() {
        with_test_vm(|vm| {
            let object = to_sandbox(&sample(), vm).unwrap();
            assert_eq!(to_value(&object, vm).unwrap(), sample());
            let flag = to_sandbox(&Value::Bool(true), vm).unwrap();
            assert!(flag.class().is(vm.ctx.types.bool_type));
        });
    }

    #[test]
    fn dates_are_built_and_checked_by_the_sandboxs_datetime() {
        with_test_vm(|vm| {
            let date = to_sandbox(&Value::When(When::Date { year: 2024, month: 2, day: 29 }), vm).unwrap();
            assert_eq!(date.repr(vm).unwrap().to_string(), "datetime.date(2024, 2, 29)");
            let bad = to_sandbox(&Value::List(vec![Value::When(When::Date { year: 2023, month: 2, day: 29 })]), vm);
            assert!(bad.unwrap_err().describe("v").starts_with("v[0] could not be converted: ValueError: day"));
            let id = to_sandbox(&Value::Uuid(255), vm).unwrap();
            assert_eq!(id.str(vm).unwrap().to_string(), "00000000-0000-0000-0000-0000000000ff");
            assert!(to_sandbox(&Value::Decimal("not a number".into()), vm).is_err());
        });
    }

    #[test]
    fn objects_that_are_not_data_cannot_leave() {
        with_test_vm(|vm| {
            let list = vm.ctx.new_list(vec![vm.ctx.new_int(1).into(), vm.ctx.types.int_type.to_owned().into()]);
            let err = to_value(&list.into(), vm).unwrap_err();
            assert!(err.describe("value").starts_with("value[1] has type 'type', which cannot leave the sandbox"));
            let looped = vm.ctx.new_list(Vec::new());
            looped.borrow_vec_mut().push(looped.clone().into());
            assert!(matches!(to_value(&looped.into(), vm).unwrap_err().kind, ConvertErrorKind::TooDeep));
        });
    }

    #[test]
    fn a_kept_value_is_the_same_object_next_run_and_only_then() {
        with_test_vm(|vm| {
            let mut kept = KeptValues::default();
            let first =
                kept.bind(vec![("doc".into(), Value::Keep(7, Box::new(Value::Str("x".repeat(5000)))))], vm).unwrap();
            let again = kept.bind(vec![("doc".into(), Value::Kept(7))], vm).unwrap();
            assert!(first[0].1.is(&again[0].1));
            let third = kept.bind(vec![("doc".into(), Value::Kept(7))], vm).unwrap();
            assert!(first[0].1.is(&third[0].1), "a value used again stays kept");
            kept.bind(vec![], vm).unwrap();
            let gone = kept.bind(vec![("doc".into(), Value::Kept(7))], vm).unwrap_err();
            assert!(gone.contains("not known"), "{gone}");
        });
    }

    #[test]
    fn an_unhashable_key_from_the_host_side_is_an_error() {
        with_test_vm(|vm| {
            let err = to_sandbox(&Value::Dict(vec![(Value::List(vec![]), Value::None)]), vm).unwrap_err();
            assert!(err.describe("v").starts_with("v[0] could not be converted: TypeError"), "{}", err.describe("v"));
        });
    }
}
