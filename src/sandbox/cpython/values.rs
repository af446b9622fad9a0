//! Objects across the bridge, both ways, inside the session process. Plain values are copied: None, bool, int,
//! float, complex, str, bytes, and lists, tuples, dicts and sets of them (slices and ranges too); standard-library
//! values (dates, decimals) go by pickle, with anything else inside them by reference. Everything else is a handle:
//! a CPython object in the sandbox is an instance of its class's mirror holding a `CPythonRef`; a sandbox object in
//! CPython is a `SandboxObject` holding a `SandboxRef`. Each end unwraps its own handles when they come back, so an
//! object that goes and returns is itself again. Exceptions cross as their own classes (mirrored where they are
//! the packages'), and one that left the sandbox comes back as the same object.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyComplex, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PyRange, PySet, PySlice,
    PyString, PyTuple, PyType,
};
use rustpython_vm::builtins::{
    PyBaseException, PyBaseExceptionRef, PyByteArray as VmByteArray, PyBytes as VmBytes, PyComplex as VmComplex,
    PyDict as VmDict, PyFloat as VmFloat, PyFrozenSet as VmFrozenSet, PyInt as VmInt, PyList as VmList,
    PyRange as VmRange, PySet as VmSet, PySlice as VmSlice, PyStr as VmStr, PyTuple as VmTuple, PyType as VmType,
    PyWeak,
};
use rustpython_vm::class::PyClassImpl;
use rustpython_vm::function::{FuncArgs, KwArgs};
use rustpython_vm::{pyclass, AsObject, PyObject, PyObjectRef, PyPayload, PyRef, PyResult as VmResult, VirtualMachine};

use super::{machinery, side, Mirror, MIRRORS};

/// Containers nested deeper than this cross as an error (a list that holds itself would never end).
const MAX_DEPTH: usize = 512;

/// A CPython object held by the sandbox (in a mirror instance's `_cpy`, a mirror class's `_cpy_type`, a module's
/// `__cpython__`).
#[pyclass(module = false, name = "cpython_object")]
#[derive(PyPayload)]
pub struct CPythonRef {
    pub obj: Py<PyAny>,
}

impl fmt::Debug for CPythonRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cpython_object")
    }
}

#[pyclass(flags(DISALLOW_INSTANTIATION))]
impl CPythonRef {}

/// Make the sandbox's handle type (before anything is wrapped).
pub fn make_types() {
    let _made = CPythonRef::make_static_type();
}

/// A sandbox object held by CPython (inside a `SandboxObject`). Dropped by CPython on the VM thread, the only
/// thread that runs either interpreter's code.
#[pyo3::pyclass(unsendable, module = "dspy_rust_interpreter._native", name = "SandboxRef")]
pub struct SandboxRef {
    pub obj: PyObjectRef,
}

/// The value type a mirror's instances derive from (`np.float64` is a `float`).
#[derive(Clone, Copy)]
pub enum ValueBase {
    Float,
    Complex,
    Str,
    Bytes,
    Int,
    /// A tuple or list subclass (scipy's result tuples, matplotlib's containers): its items.
    Items,
}

impl ValueBase {
    fn named(name: &str) -> Option<ValueBase> {
        Some(match name {
            "float" => ValueBase::Float,
            "complex" => ValueBase::Complex,
            "str" => ValueBase::Str,
            "bytes" => ValueBase::Bytes,
            "int" => ValueBase::Int,
            "tuple" | "list" => ValueBase::Items,
            _ => return None,
        })
    }
}

// The kinds `classify` answers (cpython_side.py).
const WRAP: u8 = 0;
const MODULE: u8 = 1;
const MIRROR: u8 = 2;
const SANDBOX: u8 = 3;
const VALUE: u8 = 4;
const REFUSED: u8 = 5;
const UNWRAP: u8 = 6;
const EXCEPTION: u8 = 7;

/// A CPython object as a sandbox object.
pub fn to_sandbox(py: Python<'_>, vm: &VirtualMachine, obj: &Bound<'_, PyAny>) -> VmResult {
    to_sandbox_at(py, vm, obj, 0)
}

fn to_sandbox_at(py: Python<'_>, vm: &VirtualMachine, obj: &Bound<'_, PyAny>, depth: usize) -> VmResult {
    if depth > MAX_DEPTH {
        return Err(too_deep(vm, "from CPython"));
    }
    let cpy = |e: PyErr| error_to_sandbox(py, vm, e);
    if obj.is_none() {
        return Ok(vm.ctx.none());
    }
    if obj.is_exact_instance_of::<PyBool>() {
        return Ok(vm.ctx.new_bool(obj.is_truthy().map_err(cpy)?).into());
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return int_to_sandbox(vm, obj).map_err(cpy);
    }
    if obj.is_exact_instance_of::<PyFloat>() {
        return Ok(vm.ctx.new_float(obj.extract::<f64>().map_err(cpy)?).into());
    }
    if obj.is_exact_instance_of::<PyString>() {
        return str_to_sandbox(vm, obj).map_err(cpy);
    }
    if obj.is_exact_instance_of::<PyBytes>() {
        return Ok(vm.ctx.new_bytes(obj.cast::<PyBytes>().map_err(|e| cpy(e.into()))?.as_bytes().to_vec()).into());
    }
    if obj.is_exact_instance_of::<PyComplex>() {
        let c = obj.cast::<PyComplex>().map_err(|e| cpy(e.into()))?;
        return Ok(vm.ctx.new_complex(num_complex::Complex64::new(c.real(), c.imag())).into());
    }
    if obj.is_exact_instance_of::<PyList>() || obj.is_exact_instance_of::<PyTuple>() {
        let items: Vec<PyObjectRef> = obj
            .try_iter()
            .map_err(cpy)?
            .map(|item| to_sandbox_at(py, vm, &item.map_err(cpy)?, depth + 1))
            .collect::<VmResult<_>>()?;
        return Ok(if obj.is_exact_instance_of::<PyList>() {
            vm.ctx.new_list(items).into()
        } else {
            vm.ctx.new_tuple(items).into()
        });
    }
    if obj.is_exact_instance_of::<PyDict>() {
        let dict = vm.ctx.new_dict();
        for (key, value) in obj.cast::<PyDict>().map_err(|e| cpy(e.into()))?.iter() {
            let key = to_sandbox_at(py, vm, &key, depth + 1)?;
            let value = to_sandbox_at(py, vm, &value, depth + 1)?;
            dict.set_item(&*key, value, vm)?;
        }
        return Ok(dict.into());
    }
    if obj.is_exact_instance_of::<PySet>() || obj.is_exact_instance_of::<PyFrozenSet>() {
        let items: Vec<PyObjectRef> = obj
            .try_iter()
            .map_err(cpy)?
            .map(|item| to_sandbox_at(py, vm, &item.map_err(cpy)?, depth + 1))
            .collect::<VmResult<_>>()?;
        let kind = if obj.is_exact_instance_of::<PySet>() { "set" } else { "frozenset" };
        return vm.builtins.get_attr(kind, vm)?.call((vm.ctx.new_list(items),), vm);
    }
    if obj.is_exact_instance_of::<PySlice>() {
        let parts: Vec<PyObjectRef> = ["start", "stop", "step"]
            .iter()
            .map(|name| to_sandbox_at(py, vm, &obj.getattr(*name).map_err(cpy)?, depth + 1))
            .collect::<VmResult<_>>()?;
        return vm.builtins.get_attr("slice", vm)?.call(parts, vm);
    }
    let kind = side(py).call_method1("classify", (obj,)).map_err(cpy)?;
    let (kind, detail): (u8, Bound<'_, PyAny>) = kind.extract().map_err(cpy)?;
    let machinery = machinery(vm)?;
    match kind {
        WRAP => {
            if let Some(live) = live_handle(obj) {
                return Ok(live);
            }
            let class = obj.get_type();
            let (mirror, value) = mirror_of(py, vm, &class)?;
            let value = match value {
                Some(base) => value_of(vm, obj, base).map_err(cpy)?,
                None => vm.ctx.none(),
            };
            let wrapped = machinery.get_attr("wrap", vm)?.call((mirror, handle(vm, obj), value), vm)?;
            keep_handle(vm, obj, &wrapped);
            Ok(wrapped)
        }
        MODULE => {
            let name = str_to_sandbox(vm, &detail).map_err(cpy)?;
            machinery.get_attr("module_for", vm)?.call((name, handle(vm, obj)), vm)
        }
        MIRROR => Ok(mirror_of(py, vm, obj.cast::<PyType>().map_err(|e| cpy(e.into()))?)?.0),
        SANDBOX => {
            let (module, qualname): (String, Option<String>) = detail.extract().map_err(cpy)?;
            let qualname = qualname.map_or_else(|| vm.ctx.none(), |q| vm.ctx.new_str(q).into());
            machinery.get_attr("standard", vm)?.call((vm.ctx.new_str(module), qualname), vm)
        }
        VALUE => {
            let (data, refs): (Vec<u8>, Bound<'_, PyList>) = detail.extract().map_err(cpy)?;
            let refs: Vec<PyObjectRef> =
                refs.iter().map(|r| to_sandbox_at(py, vm, &r, depth + 1)).collect::<VmResult<_>>()?;
            machinery.get_attr("from_pickle", vm)?.call((vm.ctx.new_bytes(data), vm.ctx.new_list(refs)), vm)
        }
        REFUSED => Err(vm.new_type_error(detail.extract::<String>().map_err(cpy)?)),
        EXCEPTION => Ok(match exception_from_cpython(py, vm, obj) {
            Ok(exc) | Err(exc) => exc.into(),
        }),
        UNWRAP => {
            let held = detail.cast::<SandboxRef>().map_err(|e| cpy(e.into()))?;
            Ok(held.borrow().obj.clone())
        }
        _ => Err(vm.new_system_error(format!("the bridge does not know kind {kind}"))),
    }
}

thread_local! {
    /// The sandbox's handle of each CPython object that has one alive, by the object's address (the handle holds
    /// the object, so the address stays its own while the handle lives): an object that crosses again is the same
    /// handle (`a[()] is a`, `df['x'] is df['x']` as in CPython). Entries of handles gone are dropped as it grows.
    static HANDLES: RefCell<(HashMap<usize, PyRef<PyWeak>>, usize)> = RefCell::new((HashMap::new(), 1024));
}

fn live_handle(obj: &Bound<'_, PyAny>) -> Option<PyObjectRef> {
    HANDLES.with(|handles| handles.borrow().0.get(&(obj.as_ptr() as usize)).and_then(|weak| weak.upgrade()))
}

fn keep_handle(vm: &VirtualMachine, obj: &Bound<'_, PyAny>, wrapped: &PyObjectRef) {
    let Ok(weak) = wrapped.downgrade(None, vm) else { return };
    HANDLES.with(|handles| {
        let (map, sweep_at) = &mut *handles.borrow_mut();
        map.insert(obj.as_ptr() as usize, weak);
        if map.len() >= *sweep_at {
            map.retain(|_, weak| weak.upgrade().is_some());
            *sweep_at = (map.len() * 2).max(1024);
        }
    });
}

fn too_deep(vm: &VirtualMachine, way: &str) -> PyBaseExceptionRef {
    let message = format!("maximum recursion depth exceeded while crossing {way}");
    vm.new_exception_msg(vm.ctx.exceptions.recursion_error.to_owned(), message.into())
}

/// A sandbox error as CPython's, where a conversion on CPython's side failed in the sandbox.
fn sandbox_error_text(vm: &VirtualMachine, exc: PyBaseExceptionRef) -> PyErr {
    let text = exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    pyo3::exceptions::PyTypeError::new_err(text)
}

fn handle(vm: &VirtualMachine, obj: &Bound<'_, PyAny>) -> PyObjectRef {
    CPythonRef { obj: obj.clone().unbind() }.into_ref(&vm.ctx).into()
}

fn int_to_sandbox(vm: &VirtualMachine, obj: &Bound<'_, PyAny>) -> PyResult<PyObjectRef> {
    if let Ok(small) = obj.extract::<i64>() {
        return Ok(vm.ctx.new_int(small).into());
    }
    let text = obj.str()?.to_string();
    let big: malachite_bigint::BigInt =
        text.parse().map_err(|_| PyRuntimeError::new_err("an int that does not read back"))?;
    Ok(vm.ctx.new_bigint(&big).into())
}

fn str_to_sandbox(vm: &VirtualMachine, obj: &Bound<'_, PyAny>) -> PyResult<PyObjectRef> {
    let s = obj.cast::<PyString>()?;
    match s.to_str() {
        Ok(text) => Ok(vm.ctx.new_str(text).into()),
        // Lone surrogates: through their code points, as the sandbox's str holds them.
        Err(_) => {
            let points: Vec<u32> =
                s.try_iter()?.map(|c| c?.extract::<char>().map(u32::from).or(Ok(0xFFFD))).collect::<PyResult<_>>()?;
            let text: String = points.into_iter().map(|p| char::from_u32(p).unwrap_or('\u{FFFD}')).collect();
            Ok(vm.ctx.new_str(text).into())
        }
    }
}

fn value_of(vm: &VirtualMachine, obj: &Bound<'_, PyAny>, base: ValueBase) -> PyResult<PyObjectRef> {
    Ok(match base {
        ValueBase::Float => vm.ctx.new_float(obj.extract::<f64>()?).into(),
        ValueBase::Complex => {
            let plain = obj.py().get_type::<PyComplex>().call1((obj,))?;
            let c = plain.cast::<PyComplex>()?;
            vm.ctx.new_complex(num_complex::Complex64::new(c.real(), c.imag())).into()
        }
        ValueBase::Str => {
            let plain = obj.py().get_type::<PyString>().call1((obj,))?;
            str_to_sandbox(vm, &plain)?
        }
        ValueBase::Bytes => {
            let plain = obj.py().get_type::<PyBytes>().call1((obj,))?;
            vm.ctx.new_bytes(plain.cast::<PyBytes>()?.as_bytes().to_vec()).into()
        }
        ValueBase::Int => {
            let plain = obj.py().get_type::<PyInt>().call1((obj,))?;
            int_to_sandbox(vm, &plain)?
        }
        ValueBase::Items => {
            // The items as CPython's own iteration of the base gives them (a named tuple's fields in order).
            let items = obj.py().get_type::<PyTuple>().call1((obj,))?;
            let converted: Vec<PyObjectRef> = items
                .try_iter()?
                .map(|item| to_sandbox(obj.py(), vm, &item?).map_err(|e| sandbox_error_text(vm, e)))
                .collect::<PyResult<_>>()?;
            vm.ctx.new_list(converted).into()
        }
    })
}

/// The sandbox's mirror of CPython class `class` (made once), and its instances' value type.
fn mirror_of(
    py: Python<'_>,
    vm: &VirtualMachine,
    class: &Bound<'_, PyType>,
) -> VmResult<(PyObjectRef, Option<ValueBase>)> {
    let key = class.as_ptr() as usize;
    if let Some(found) = MIRRORS.with(|m| m.borrow().get(&key).map(|m| (m.sandbox.clone(), m.value))) {
        return Ok(found);
    }
    let cpy = |e: PyErr| error_to_sandbox(py, vm, e);
    let described = side(py).call_method1("describe", (class,)).map_err(cpy)?;
    type Described<'py> = (String, String, String, Bound<'py, PyList>, Option<String>, bool, Vec<String>, bool);
    let (name, qualname, module, bases, value, exception, special, unhashable): Described<'_> =
        described.extract().map_err(cpy)?;
    let mut sandbox_bases = Vec::new();
    for base in bases.iter() {
        let (tag, base): (String, Bound<'_, PyAny>) = base.extract().map_err(cpy)?;
        if tag == "builtins" {
            let name: String = base.extract().map_err(cpy)?;
            if let Ok(builtin) = vm.builtins.get_attr(&vm.ctx.new_str(name), vm) {
                sandbox_bases.push(builtin);
            }
        } else {
            sandbox_bases.push(mirror_of(py, vm, base.cast::<PyType>().map_err(|e| cpy(e.into()))?)?.0);
        }
    }
    let value_base = value.as_deref().and_then(ValueBase::named);
    let value_type = match &value {
        Some(name) => vm.builtins.get_attr(&vm.ctx.new_str(name.as_str()), vm)?,
        None => vm.ctx.none(),
    };
    let special: Vec<PyObjectRef> = special.into_iter().map(|s| vm.ctx.new_str(s).into()).collect();
    let args: Vec<PyObjectRef> = vec![
        handle(vm, class.as_any()),
        vm.ctx.new_str(name).into(),
        vm.ctx.new_str(qualname).into(),
        vm.ctx.new_str(module).into(),
        vm.ctx.new_tuple(sandbox_bases).into(),
        value_type,
        vm.ctx.new_bool(exception).into(),
        vm.ctx.new_tuple(special).into(),
        vm.ctx.new_bool(unhashable).into(),
    ];
    let mirror = machinery(vm)?.get_attr("make_mirror", vm)?.call(args, vm)?;
    MIRRORS.with(|m| {
        m.borrow_mut()
            .insert(key, Mirror { _class: class.clone().unbind(), sandbox: mirror.clone(), value: value_base })
    });
    Ok((mirror, value_base))
}

/// A sandbox object as a CPython object.
pub fn to_cpython<'py>(py: Python<'py>, vm: &VirtualMachine, obj: &PyObject) -> VmResult<Bound<'py, PyAny>> {
    to_cpython_at(py, vm, obj, 0)
}

fn to_cpython_at<'py>(
    py: Python<'py>,
    vm: &VirtualMachine,
    obj: &PyObject,
    depth: usize,
) -> VmResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH {
        return Err(too_deep(vm, "to CPython"));
    }
    let cpy = |e: PyErr| error_to_sandbox(py, vm, e);
    let class = obj.class();
    let types = &vm.ctx.types;
    if vm.is_none(obj) {
        return Ok(py.None().into_bound(py));
    }
    if class.is(types.bool_type) {
        return Ok(PyBool::new(py, obj.is(&vm.ctx.true_value)).to_owned().into_any());
    }
    if class.is(types.int_type) {
        let int = obj.downcast_ref::<VmInt>().expect("an int");
        return match i64::try_from(int.as_bigint()) {
            Ok(small) => Ok(small.into_pyobject(py).map_err(|e| cpy(e.into()))?.into_any()),
            Err(_) => py.get_type::<PyInt>().call1((int.as_bigint().to_string(),)).map_err(cpy),
        };
    }
    if class.is(types.float_type) {
        return Ok(PyFloat::new(py, obj.downcast_ref::<VmFloat>().expect("a float").to_f64()).into_any());
    }
    if class.is(types.str_type) {
        let s = obj.downcast_ref::<VmStr>().expect("a str");
        return match s.to_str() {
            Some(text) => Ok(PyString::new(py, text).into_any()),
            None => Ok(PyString::new(py, &s.to_string_lossy()).into_any()),
        };
    }
    if class.is(types.bytes_type) {
        return Ok(PyBytes::new(py, obj.downcast_ref::<VmBytes>().expect("bytes").as_bytes()).into_any());
    }
    if class.is(types.complex_type) {
        let c = obj.downcast_ref::<VmComplex>().expect("a complex").to_complex();
        return Ok(PyComplex::from_doubles(py, c.re, c.im).into_any());
    }
    if class.is(types.list_type) || class.is(types.tuple_type) {
        let items: Vec<PyObjectRef> = match obj.downcast_ref::<VmList>() {
            Some(list) => list.borrow_vec().to_vec(),
            None => obj.downcast_ref::<VmTuple>().expect("a tuple").as_slice().to_vec(),
        };
        let items = all_to_cpython(py, vm, &items, depth + 1)?;
        return Ok(if class.is(types.list_type) {
            PyList::new(py, items).map_err(cpy)?.into_any()
        } else {
            PyTuple::new(py, items).map_err(cpy)?.into_any()
        });
    }
    if class.is(types.dict_type) {
        let dict = PyDict::new(py);
        for (key, value) in obj.downcast_ref::<VmDict>().expect("a dict").items_vec() {
            let key = to_cpython_at(py, vm, &key, depth + 1)?;
            let value = to_cpython_at(py, vm, &value, depth + 1)?;
            dict.set_item(key, value).map_err(cpy)?;
        }
        return Ok(dict.into_any());
    }
    if class.is(types.set_type) || class.is(types.frozenset_type) {
        let elements = match obj.downcast_ref::<VmSet>() {
            Some(set) => set.elements(),
            None => obj.downcast_ref::<VmFrozenSet>().expect("a frozenset").elements(),
        };
        let items = all_to_cpython(py, vm, &elements, depth + 1)?;
        return Ok(if class.is(types.set_type) {
            PySet::new(py, items).map_err(cpy)?.into_any()
        } else {
            PyFrozenSet::new(py, items).map_err(cpy)?.into_any()
        });
    }
    if class.is(types.slice_type) {
        let slice = obj.downcast_ref::<VmSlice>().expect("a slice");
        let part = |p: Option<&PyObjectRef>| match p {
            Some(p) => to_cpython_at(py, vm, p, depth + 1),
            None => Ok(py.None().into_bound(py)),
        };
        let (start, stop, step) = (part(slice.start.as_ref())?, part(Some(&slice.stop))?, part(slice.step.as_ref())?);
        return py.get_type::<PySlice>().call1((start, stop, step)).map_err(cpy);
    }
    if class.is(types.range_type) {
        let range = obj.downcast_ref::<VmRange>().expect("a range");
        let part = |p: &PyObject| to_cpython_at(py, vm, p, depth + 1);
        let (start, stop, step) =
            (part(range.start.as_object())?, part(range.stop.as_object())?, part(range.step.as_object())?);
        return py.get_type::<PyRange>().call1((start, stop, step)).map_err(cpy);
    }
    if class.is(types.bytearray_type) {
        let data = obj.downcast_ref::<VmByteArray>().expect("a bytearray").borrow_buf().to_vec();
        return Ok(PyByteArray::new(py, &data).into_any());
    }
    if obj.is(&vm.ctx.not_implemented) {
        return Ok(py.NotImplemented().into_bound(py));
    }
    if obj.is(&vm.ctx.ellipsis) {
        return Ok(py.Ellipsis().into_bound(py));
    }
    if let Some(held) = held_cpython(vm, obj)? {
        return Ok(held.bind(py).clone());
    }
    if let Some(class) = obj.downcast_ref::<VmType>() {
        // The sandbox's builtin classes are CPython's of the same name (`dtype=float`, `astype(str)`).
        let name = class.name().to_string();
        let builtin = vm.builtins.get_attr(&vm.ctx.new_str(name.as_str()), vm).is_ok_and(|found| found.is(obj));
        if builtin {
            if let Ok(found) = py.import("builtins").and_then(|b| b.getattr(name.as_str())) {
                return Ok(found);
            }
        }
    }
    if let Some(exc) = obj.downcast_ref::<PyBaseException>() {
        return Ok(exception_to_cpython(py, vm, &exc.to_owned())?.into_any());
    }
    if let Some(tuple) = obj.downcast_ref::<VmTuple>() {
        // A named tuple (a tuple subclass with `_fields`): CPython's own named tuple of that name and fields.
        if let Ok(fields) = obj.get_attr("_fields", vm).and_then(|f| f.try_to_value::<Vec<String>>(vm)) {
            let items = all_to_cpython(py, vm, tuple.as_slice(), depth + 1)?;
            let name = class.name().to_string();
            return side(py)
                .call_method1("named_tuple", (name, fields, PyTuple::new(py, items).map_err(cpy)?))
                .map_err(cpy);
        }
    }
    let machinery = machinery(vm)?;
    let pickled = machinery.get_attr("to_pickle", vm)?.call((obj.to_owned(),), vm)?;
    if !vm.is_none(&pickled) {
        let pair: Vec<PyObjectRef> = pickled.try_to_value(vm)?;
        let [data, refs] =
            <[PyObjectRef; 2]>::try_from(pair).map_err(|_| vm.new_type_error("to_pickle gives a pair"))?;
        let data = data.downcast_ref::<VmBytes>().map(|b| b.as_bytes().to_vec()).unwrap_or_default();
        let refs: Vec<PyObjectRef> = refs.try_to_value(vm)?;
        let refs = all_to_cpython(py, vm, &refs, depth + 1)?;
        return side(py)
            .call_method1("from_pickle", (PyBytes::new(py, &data), PyList::new(py, refs).map_err(cpy)?))
            .map_err(cpy);
    }
    sandbox_object(py, vm, obj.to_owned())
}

fn all_to_cpython<'py>(
    py: Python<'py>,
    vm: &VirtualMachine,
    items: &[PyObjectRef],
    depth: usize,
) -> VmResult<Vec<Bound<'py, PyAny>>> {
    items.iter().map(|item| to_cpython_at(py, vm, item, depth)).collect()
}

/// A sandbox object wrapped for CPython.
fn sandbox_object<'py>(py: Python<'py>, vm: &VirtualMachine, obj: PyObjectRef) -> VmResult<Bound<'py, PyAny>> {
    let cpy = |e: PyErr| error_to_sandbox(py, vm, e);
    let special = machinery(vm)?.get_attr("special_of", vm)?.call((obj.clone(),), vm)?;
    let special = to_cpython(py, vm, &special)?;
    let held = Py::new(py, SandboxRef { obj }).map_err(cpy)?;
    side(py).call_method1("sandbox_object", (held, special)).map_err(cpy)
}

/// The CPython object a sandbox object holds, when it is one of the bridge's handles (a mirror's instance, a
/// mirror class, a module of the packages).
fn held_cpython(vm: &VirtualMachine, obj: &PyObject) -> VmResult<Option<Py<PyAny>>> {
    let name = if obj.class().fast_issubclass(foreign_base(vm)?.as_object()) {
        "_cpy"
    } else if let Some(class) = obj.downcast_ref::<VmType>() {
        return Ok(class
            .get_direct_attr(vm.ctx.intern_str("_cpy_type"))
            .and_then(|held| held.downcast_ref::<CPythonRef>().map(|r| r.obj.clone_ref_unattached())));
    } else if obj.class().fast_issubclass(foreign_module(vm)?.as_object()) {
        "__cpython__"
    } else {
        return Ok(None);
    };
    let held = obj.get_attr(name, vm)?;
    Ok(held.downcast_ref::<CPythonRef>().map(|r| r.obj.clone_ref_unattached()))
}

trait CloneUnattached {
    fn clone_ref_unattached(&self) -> Py<PyAny>;
}

impl CloneUnattached for Py<PyAny> {
    fn clone_ref_unattached(&self) -> Py<PyAny> {
        Python::attach(|py| self.clone_ref(py))
    }
}

fn foreign_base(vm: &VirtualMachine) -> VmResult<PyObjectRef> {
    machinery(vm)?.get_attr("Foreign", vm)
}

fn foreign_module(vm: &VirtualMachine) -> VmResult<PyObjectRef> {
    machinery(vm)?.get_attr("ForeignModule", vm)
}

/// A CPython error as the sandbox's: one that left the sandbox is itself again; KeyboardInterrupt is the run's
/// stop (the monitor interrupted CPython); others are their class (mirrored, or the sandbox's builtin of that name)
/// with their arguments.
pub fn error_to_sandbox(py: Python<'_>, vm: &VirtualMachine, err: PyErr) -> PyBaseExceptionRef {
    let value = err.value(py).clone();
    if let Ok(original) = value.getattr("_sandbox_original") {
        if let Ok(held) = original.cast::<SandboxRef>() {
            if let Ok(exc) = held.borrow().obj.clone().downcast::<PyBaseException>() {
                return exc;
            }
        }
    }
    if err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
        if let Some(stop) = crate::sandbox::vm::limits::shared()
            .and_then(|shared| crate::sandbox::vm::limits::stop_exception(vm, &shared))
        {
            return stop;
        }
    }
    match exception_from_cpython(py, vm, &value) {
        Ok(exc) => exc,
        Err(exc) => exc,
    }
}

fn exception_from_cpython(
    py: Python<'_>,
    vm: &VirtualMachine,
    value: &Bound<'_, PyAny>,
) -> VmResult<PyBaseExceptionRef> {
    let class = to_sandbox(py, vm, value.get_type().as_any())?;
    let class = class.downcast::<VmType>().map_err(|_| vm.new_type_error("an exception class that did not cross"))?;
    let args = value.getattr("args").map_err(|e| vm.new_runtime_error(e.to_string()))?;
    let mut args: Vec<PyObjectRef> = match to_sandbox(py, vm, &args) {
        Ok(tuple) => tuple.try_to_value(vm)?,
        Err(_) => vec![vm.ctx.new_str(value.str().map(|s| s.to_string()).unwrap_or_default()).into()],
    };
    // OSError's filename is not among its args, though its constructor takes it third.
    if let Ok(filename) = value.getattr("filename") {
        if !filename.is_none() && args.len() == 2 {
            args.push(to_sandbox(py, vm, &filename)?);
        }
    }
    let made = class.as_object().call(args, vm)?;
    if class.get_direct_attr(vm.ctx.intern_str("_cpy_type")).is_some() {
        // A package's exception keeps its attributes (jsonschema's `e.message`, `e.path`) and its own words.
        if let Ok(attributes) = value.getattr("__dict__").and_then(|d| d.cast_into::<PyDict>().map_err(PyErr::from)) {
            for (name, attribute) in attributes.iter() {
                let (Ok(name), Ok(attribute)) = (name.extract::<String>(), to_sandbox(py, vm, &attribute)) else {
                    continue;
                };
                let _ = made.set_attr(&vm.ctx.new_str(name), attribute, vm);
            }
        }
        if let Ok(text) = value.str() {
            made.set_attr("_cpython_str", vm.ctx.new_str(text.to_string()), vm)?;
        }
    }
    made.downcast::<PyBaseException>().map_err(|_| vm.new_type_error("an exception that is not one"))
}

/// A sandbox exception as CPython's, carrying the original (so it comes back as itself): a class of the
/// packages is itself; any other, the nearest builtin class it derives from.
fn exception_to_cpython<'py>(
    py: Python<'py>,
    vm: &VirtualMachine,
    exc: &PyBaseExceptionRef,
) -> VmResult<Bound<'py, PyAny>> {
    let cpy = |e: PyErr| error_to_sandbox(py, vm, e);
    let builtins = py.import("builtins").map_err(cpy)?;
    let mut class = None;
    for base in exc.class().mro_map_collect(|c| c.to_owned()) {
        if let Some(held) = held_cpython(vm, base.as_object())? {
            class = Some(held.into_bound(py));
            break;
        }
        let name = base.name().to_string();
        let builtin =
            vm.builtins.get_attr(&vm.ctx.new_str(name.as_str()), vm).is_ok_and(|found| found.is(base.as_object()));
        if builtin {
            if let Ok(found) = builtins.getattr(name.as_str()) {
                if found.is_instance_of::<PyType>() {
                    class = Some(found);
                    break;
                }
            }
        }
    }
    let class = class.unwrap_or_else(|| builtins.getattr("Exception").expect("builtins has Exception"));
    let args: Vec<Bound<'py, PyAny>> = exc
        .args()
        .iter()
        .map(|arg| {
            to_cpython(py, vm, arg).or_else(|_| Ok(PyString::new(py, &arg.str(vm)?.to_string_lossy()).into_any()))
        })
        .collect::<VmResult<_>>()?;
    let made = class.call1(PyTuple::new(py, args).map_err(cpy)?).map_err(cpy)?;
    let held = Py::new(py, SandboxRef { obj: exc.clone().into() }).map_err(cpy)?;
    let _ = made.setattr("_sandbox_original", held);
    Ok(made)
}

/// A sandbox error raised into CPython (a callback failed).
pub fn error_to_cpython(py: Python<'_>, vm: &VirtualMachine, exc: PyBaseExceptionRef) -> PyErr {
    match exception_to_cpython(py, vm, &exc) {
        Ok(made) => PyErr::from_value(made),
        Err(_) => PyRuntimeError::new_err(
            exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        ),
    }
}

/// Positional and keyword arguments for a CPython call.
pub fn call_args<'py>(
    py: Python<'py>,
    vm: &VirtualMachine,
    args: &[PyObjectRef],
    kwargs: Option<&PyObjectRef>,
) -> VmResult<(Bound<'py, PyTuple>, Option<Bound<'py, PyDict>>)> {
    let cpy = |e: PyErr| error_to_sandbox(py, vm, e);
    let positional: Vec<Bound<'py, PyAny>> = args.iter().map(|a| to_cpython(py, vm, a)).collect::<VmResult<_>>()?;
    let keywords = match kwargs {
        Some(kwargs) if !vm.is_none(kwargs) => {
            let dict = PyDict::new(py);
            let kwargs = kwargs.downcast_ref::<VmDict>().ok_or_else(|| vm.new_type_error("keywords must be a dict"))?;
            for (key, value) in kwargs.items_vec() {
                dict.set_item(to_cpython(py, vm, &key)?, to_cpython(py, vm, &value)?).map_err(cpy)?;
            }
            Some(dict)
        }
        _ => None,
    };
    Ok((PyTuple::new(py, positional).map_err(cpy)?, keywords))
}

/// A CPython call's arguments as a sandbox call's.
pub fn sandbox_args(
    py: Python<'_>,
    vm: &VirtualMachine,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> VmResult<FuncArgs> {
    let positional: Vec<PyObjectRef> = args.iter().map(|a| to_sandbox(py, vm, &a)).collect::<VmResult<_>>()?;
    let mut keywords = KwArgs::default();
    if let Some(kwargs) = kwargs {
        let mut pairs = Vec::new();
        for (key, value) in kwargs.iter() {
            let key: String = key.extract().map_err(|e| error_to_sandbox(py, vm, e))?;
            pairs.push((key, to_sandbox(py, vm, &value)?));
        }
        keywords = pairs.into_iter().collect();
    }
    Ok(FuncArgs::new(positional, keywords))
}
