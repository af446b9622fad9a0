//! Moving values between the host (CPython, through PyO3) and the sandbox (RustPython).
//!
//! Both directions accept the same plain-data set: None, bool, int of any size, float, str, bytes, list,
//! tuple, dict, set, frozenset, nested. The host side also takes pydantic models (`model_dump()`) and
//! dataclasses (`dataclasses.asdict`), which arrive as dicts. Conversions run on the worker thread with the
//! GIL held, straight from one object graph to the other. Errors record where in the value they happened,
//! built while unwinding so that successful conversions pay nothing for it.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};
use rustpython_vm::builtins::{
    PyBytes as VmBytes, PyDict as VmDict, PyFloat as VmFloat, PyFrozenSet as VmFrozenSet, PyInt as VmInt,
    PyList as VmList, PySet as VmSet, PyStr as VmStr, PyTuple as VmTuple,
};
use rustpython_vm::{AsObject, PyObjectRef, PyPayload, VirtualMachine};

pub use crate::protocol::value::{MAX_DEPTH, MAX_VALUES};

const SUPPORTED: &str = "None, bool, int, float, str, bytes, list, tuple, dict, set or frozenset";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    IntoSandbox,
    OutOfSandbox,
}

#[derive(Debug, thiserror::Error)]
pub enum ConvertErrorKind {
    #[error("has type '{type_name}', which cannot {direction}; use {SUPPORTED}{hint}", direction = match .direction { Direction::IntoSandbox => "enter the sandbox", Direction::OutOfSandbox => "leave the sandbox" }, hint = match .direction { Direction::IntoSandbox => " (pydantic models and dataclasses are passed as dicts)", Direction::OutOfSandbox => " (convert it, e.g. with str() or a dict of its fields)" })]
    Unsupported { type_name: String, direction: Direction },
    #[error("is nested more than {MAX_DEPTH} levels deep, or contains itself")]
    TooDeep,
    #[error("holds more than {MAX_VALUES} values (counting shared parts each time they appear)")]
    TooLarge,
    #[error("could not be converted: {0}")]
    Failed(String),
}

impl ConvertErrorKind {
    /// Too deep or too large to show either: repr() of it would be as unbounded as converting it.
    pub fn is_size(&self) -> bool {
        matches!(self, Self::TooDeep | Self::TooLarge)
    }
}

/// A conversion failure and where it happened, e.g. `['items'][3]`.
#[derive(Debug)]
pub struct ConvertError {
    /// Path segments, innermost first (they are added while unwinding).
    segments: Vec<String>,
    pub kind: ConvertErrorKind,
}

impl ConvertError {
    pub(crate) fn new(kind: ConvertErrorKind) -> Self {
        Self { segments: Vec::new(), kind }
    }

    pub(crate) fn within(mut self, segment: String) -> Self {
        self.segments.push(segment);
        self
    }

    /// Describe the failure for a value called `root` (e.g. "variable 'data'" -> "data['k'][2] has type ...").
    pub fn describe(&self, root: &str) -> String {
        let path: String = self.segments.iter().rev().map(String::as_str).collect();
        format!("{root}{path} {}", self.kind)
    }
}

type Result<T> = std::result::Result<T, ConvertError>;

thread_local! {
    /// Values converted so far in the current top-level conversion (see `MAX_VALUES`).
    static VALUES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Count one value leaving the sandbox, refusing past the budget or the depth limit. Every few hundred
/// values the GIL is let go for a moment, so a large conversion does not stall the host's other threads.
fn enter_value(depth: usize, py: Python<'_>) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(ConvertError::new(ConvertErrorKind::TooDeep));
    }
    let seen = VALUES.with(|v| {
        v.set(v.get() + 1);
        v.get()
    });
    if seen > MAX_VALUES {
        return Err(ConvertError::new(ConvertErrorKind::TooLarge));
    }
    if seen % 256 == 0 {
        py.detach(std::thread::yield_now);
    }
    Ok(())
}

pub(crate) fn index_segment(i: usize) -> String {
    format!("[{i}]")
}

// ---------------------------------------------------------------------------------------------------------
// host -> sandbox

pub fn to_sandbox(obj: &Bound<'_, PyAny>, vm: &VirtualMachine) -> Result<PyObjectRef> {
    to_sandbox_at(obj, vm, 0)
}

fn to_sandbox_at(obj: &Bound<'_, PyAny>, vm: &VirtualMachine, depth: usize) -> Result<PyObjectRef> {
    if depth > MAX_DEPTH {
        return Err(ConvertError::new(ConvertErrorKind::TooDeep));
    }
    if obj.is_none() {
        return Ok(vm.ctx.none());
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(vm.ctx.new_bool(b.is_true()).into());
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(small) = obj.extract::<i64>() {
            return Ok(vm.ctx.new_int(small).into());
        }
        let big: num_bigint::BigInt = obj.extract().map_err(|e| failed(obj.py(), e))?;
        let big = malachite_bigint::BigInt::from_signed_bytes_le(&big.to_signed_bytes_le());
        return Ok(vm.ctx.new_bigint(&big).into());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(vm.ctx.new_float(f.value()).into());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        // Lone surrogates cannot be UTF-8; they become U+FFFD.
        return Ok(vm.ctx.new_str(s.to_string_lossy().into_owned()).into());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(vm.ctx.new_bytes(b.as_bytes().to_vec()).into());
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return Ok(vm.ctx.new_list(items_to_sandbox(list.iter(), vm, depth)?).into());
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return Ok(vm.ctx.new_tuple(items_to_sandbox(tuple.iter(), vm, depth)?).into());
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let out = vm.ctx.new_dict();
        for (key, value) in dict.iter() {
            let segment = || format!("[{}]", key.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into()));
            let k = to_sandbox_at(&key, vm, depth + 1).map_err(|e| e.within(segment()))?;
            let v = to_sandbox_at(&value, vm, depth + 1).map_err(|e| e.within(segment()))?;
            out.set_item(&*k, v, vm).map_err(|e| sandbox_failed(vm, e).within(segment()))?;
        }
        return Ok(out.into());
    }
    if let Ok(set) = obj.cast::<PySet>() {
        let out = VmSet::default().into_ref(&vm.ctx);
        for item in items_to_sandbox(set.iter(), vm, depth)? {
            out.add(item, vm).map_err(|e| sandbox_failed(vm, e))?;
        }
        return Ok(out.into());
    }
    if let Ok(set) = obj.cast::<PyFrozenSet>() {
        let items = items_to_sandbox(set.iter(), vm, depth)?;
        let frozen = VmFrozenSet::from_iter(vm, items).map_err(|e| sandbox_failed(vm, e))?;
        return Ok(frozen.into_ref(&vm.ctx).into());
    }
    if let Some(plain) = plain_form(obj).map_err(|e| failed(obj.py(), e))? {
        return to_sandbox_at(&plain, vm, depth + 1);
    }
    Err(ConvertError::new(ConvertErrorKind::Unsupported {
        type_name: type_name(obj),
        direction: Direction::IntoSandbox,
    }))
}

fn items_to_sandbox<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    vm: &VirtualMachine,
    depth: usize,
) -> Result<Vec<PyObjectRef>> {
    items
        .enumerate()
        .map(|(i, item)| to_sandbox_at(&item, vm, depth + 1).map_err(|e| e.within(index_segment(i))))
        .collect()
}

/// The dict form of a pydantic model or dataclass instance, if `obj` is one.
pub(crate) fn plain_form<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    if obj.is_instance_of::<pyo3::types::PyType>() {
        return Ok(None);
    }
    let cls = obj.get_type();
    if cls.hasattr(pyo3::intern!(py, "model_dump"))? && cls.hasattr(pyo3::intern!(py, "model_fields"))? {
        return obj.call_method0(pyo3::intern!(py, "model_dump")).map(Some);
    }
    if cls.hasattr(pyo3::intern!(py, "__dataclass_fields__"))? {
        let dataclasses = py.import(pyo3::intern!(py, "dataclasses"))?;
        return dataclasses.call_method1(pyo3::intern!(py, "asdict"), (obj,)).map(Some);
    }
    Ok(None)
}

pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

pub(crate) fn failed(py: Python<'_>, err: PyErr) -> ConvertError {
    ConvertError::new(ConvertErrorKind::Failed(err.value(py).to_string()))
}

pub(crate) fn sandbox_failed(vm: &VirtualMachine, exc: rustpython_vm::builtins::PyBaseExceptionRef) -> ConvertError {
    let message = exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    ConvertError::new(ConvertErrorKind::Failed(format!("{}: {message}", exc.class().name())))
}

// ---------------------------------------------------------------------------------------------------------
// sandbox -> host

pub fn to_host(obj: &PyObjectRef, vm: &VirtualMachine, py: Python<'_>) -> Result<Py<PyAny>> {
    VALUES.with(|v| v.set(0));
    // A conversion builds trees, never cycles, yet each container it makes counts towards CPython's next
    // collection, which walks the whole host heap: with the collector on, a million-value conversion spent
    // seconds in it.
    // SAFETY: called with the GIL held (`py`); the collector's previous state is restored below.
    let collector_was_on = unsafe { pyo3::ffi::PyGC_Disable() } == 1;
    let converted = to_host_at(obj, vm, py, 0);
    if collector_was_on {
        // SAFETY: as above.
        unsafe { pyo3::ffi::PyGC_Enable() };
    }
    converted
}

fn to_host_at(obj: &PyObjectRef, vm: &VirtualMachine, py: Python<'_>, depth: usize) -> Result<Py<PyAny>> {
    enter_value(depth, py)?;
    if vm.is_none(obj) {
        return Ok(py.None());
    }
    if obj.class().is(vm.ctx.types.bool_type) {
        return Ok(PyBool::new(py, obj.is(&vm.ctx.true_value)).to_owned().into_any().unbind());
    }
    if let Some(int) = obj.downcast_ref::<VmInt>() {
        let big = int.as_bigint();
        if let Ok(small) = i64::try_from(big) {
            return Ok(small.into_pyobject(py).expect("infallible").into_any().unbind());
        }
        let big = num_bigint::BigInt::from_signed_bytes_le(&big.to_signed_bytes_le());
        return big.into_pyobject(py).map(|b| b.into_any().unbind()).map_err(|e| failed(py, e));
    }
    if let Some(f) = obj.downcast_ref::<VmFloat>() {
        return Ok(PyFloat::new(py, f.to_f64()).into_any().unbind());
    }
    if let Some(s) = obj.downcast_ref::<VmStr>() {
        return Ok(PyString::new(py, &s.to_string_lossy()).into_any().unbind());
    }
    if let Some(b) = obj.downcast_ref::<VmBytes>() {
        return Ok(PyBytes::new(py, b.as_bytes()).into_any().unbind());
    }
    if let Some(list) = obj.downcast_ref::<VmList>() {
        let items: Vec<PyObjectRef> = list.borrow_vec().to_vec();
        let converted = items_to_host(&items, vm, py, depth)?;
        return PyList::new(py, converted).map(|l| l.into_any().unbind()).map_err(|e| failed(py, e));
    }
    if let Some(tuple) = obj.downcast_ref::<VmTuple>() {
        let converted = items_to_host(tuple.as_slice(), vm, py, depth)?;
        return PyTuple::new(py, converted).map(|t| t.into_any().unbind()).map_err(|e| failed(py, e));
    }
    if let Some(dict) = obj.downcast_ref::<VmDict>() {
        let out = PyDict::new(py);
        for (key, value) in dict.items_vec() {
            let segment = || format!("[{}]", describe_sandbox_key(&key, vm));
            let k = to_host_at(&key, vm, py, depth + 1).map_err(|e| e.within(segment()))?;
            let v = to_host_at(&value, vm, py, depth + 1).map_err(|e| e.within(segment()))?;
            out.set_item(k, v).map_err(|e| failed(py, e).within(segment()))?;
        }
        return Ok(out.into_any().unbind());
    }
    if let Some(set) = obj.downcast_ref::<VmSet>() {
        let converted = items_to_host(&set.elements(), vm, py, depth)?;
        return PySet::new(py, converted).map(|s| s.into_any().unbind()).map_err(|e| failed(py, e));
    }
    if let Some(set) = obj.downcast_ref::<VmFrozenSet>() {
        let converted = items_to_host(&set.elements(), vm, py, depth)?;
        return PyFrozenSet::new(py, converted).map(|s| s.into_any().unbind()).map_err(|e| failed(py, e));
    }
    Err(ConvertError::new(ConvertErrorKind::Unsupported {
        type_name: obj.class().name().to_string(),
        direction: Direction::OutOfSandbox,
    }))
}

/// A dict key for an error path, without running sandbox code (a user `__repr__` could loop while the GIL
/// is held): strings and numbers as themselves, anything else by its type.
pub(crate) fn describe_sandbox_key(key: &PyObjectRef, vm: &VirtualMachine) -> String {
    if let Some(s) = key.downcast_ref::<VmStr>() {
        let text = s.to_string_lossy();
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'").replace('\n', "\\n"))
    } else if key.downcast_ref::<VmInt>().is_some() && key.class().is(vm.ctx.types.int_type) {
        key.downcast_ref::<VmInt>().map(|i| i.as_bigint().to_string()).unwrap_or_default()
    } else {
        format!("<{} key>", key.class().name())
    }
}

fn items_to_host(items: &[PyObjectRef], vm: &VirtualMachine, py: Python<'_>, depth: usize) -> Result<Vec<Py<PyAny>>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| to_host_at(item, vm, py, depth + 1).map_err(|e| e.within(index_segment(i))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_vm(f: impl FnOnce(&VirtualMachine, Python<'_>)) {
        Python::initialize();
        crate::sandbox::with_test_vm(|vm| Python::attach(|py| f(vm, py)));
    }

    fn host<'py>(py: Python<'py>, expr: &str) -> Bound<'py, PyAny> {
        let code = std::ffi::CString::new(expr).unwrap();
        py.eval(&code, None, None).unwrap()
    }

    #[test]
    fn plain_data_round_trips_unchanged() {
        with_vm(|vm, py| {
            let original = host(
                py,
                "[None, True, False, 0, -7, 2**200, -(3**90), 1.5, float('inf'), 'héllo ✓', b'\\x00\\xff', \
                 (1, (2,)), {'k': [1, {2: 'x'}], (1, 'a'): None}, {1, 'two'}, frozenset({3})]",
            );
            let inside = to_sandbox(&original, vm).unwrap();
            let back = to_host(&inside, vm, py).unwrap();
            assert!(back.bind(py).eq(&original).unwrap());
            // bool stays bool, not int
            let flag = to_host(&to_sandbox(&host(py, "True"), vm).unwrap(), vm, py).unwrap();
            assert!(flag.bind(py).is_instance_of::<PyBool>());
        });
    }

    #[test]
    fn nan_survives_the_trip() {
        with_vm(|vm, py| {
            let back = to_host(&to_sandbox(&host(py, "float('nan')"), vm).unwrap(), vm, py).unwrap();
            assert!(back.extract::<f64>(py).unwrap().is_nan());
        });
    }

    #[test]
    fn unsupported_host_value_names_its_path_and_type() {
        with_vm(|vm, py| {
            let err = to_sandbox(&host(py, "{'a': [1, object()]}"), vm).unwrap_err();
            let message = err.describe("variable 'x': x");
            assert_eq!(
                message,
                "variable 'x': x['a'][1] has type 'object', which cannot enter the sandbox; use None, bool, int, \
                 float, str, bytes, list, tuple, dict, set or frozenset (pydantic models and dataclasses are \
                 passed as dicts)"
            );
        });
    }

    #[test]
    fn self_containing_value_is_refused_not_overflowed() {
        with_vm(|vm, py| {
            let locals = pyo3::types::PyDict::new(py);
            py.run(c"a = []\na.append(a)", None, Some(&locals)).unwrap();
            let value = locals.get_item("a").unwrap().unwrap();
            let err = to_sandbox(&value, vm).unwrap_err();
            assert!(matches!(err.kind, ConvertErrorKind::TooDeep));
        });
    }

    #[test]
    fn sandbox_objects_that_are_not_data_cannot_leave() {
        with_vm(|vm, py| {
            let list = vm.ctx.new_list(vec![vm.ctx.new_int(1).into(), vm.ctx.types.int_type.to_owned().into()]);
            let err = to_host(&list.into(), vm, py).unwrap_err();
            assert!(err.describe("value").starts_with("value[1] has type 'type', which cannot leave the sandbox"));
        });
    }
}
