//! Host values (CPython, through PyO3) <-> protocol `Value`s. Into the protocol: the plain-data set, plus
//! pydantic models and dataclasses as dicts; every value is counted, so a host value that shares sub-lists
//! a million ways is refused instead of expanded for ever. Out of it: only what a session may send back
//! (no `Keep`/`Kept`), checked again, as the session process is not trusted.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};

use crate::convert::{failed, index_segment, plain_form, type_name, ConvertError, ConvertErrorKind, Direction};
use crate::protocol::value::{HostBuffer, Value, MAX_DEPTH, MAX_VALUES};
use crate::protocol::wire::REFER_FROM;

type Result<T> = std::result::Result<T, ConvertError>;

/// A host value as protocol data.
pub fn to_value(obj: &Bound<'_, PyAny>) -> Result<Value> {
    let mut seen = 0;
    to_value_at(obj, 0, &mut seen)
}

fn to_value_at(obj: &Bound<'_, PyAny>, depth: usize, seen: &mut usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(ConvertError::new(ConvertErrorKind::TooDeep));
    }
    *seen += 1;
    if *seen > MAX_VALUES {
        return Err(ConvertError::new(ConvertErrorKind::TooLarge));
    }
    if obj.is_none() {
        return Ok(Value::None);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(small) = obj.extract::<i64>() {
            return Ok(Value::Int(small));
        }
        let big: num_bigint::BigInt = obj.extract().map_err(|e| failed(obj.py(), e))?;
        return Ok(Value::BigInt(big.to_signed_bytes_le()));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        if let Ok(text) = s.to_str() {
            if text.len() >= REFER_FROM {
                // SAFETY: a str's UTF-8 is immutable and lives as long as the str, which `owner` holds.
                return Ok(Value::Host(unsafe { HostBuffer::new(true, text.as_bytes(), owner(obj)) }));
            }
            return Ok(Value::Str(text.to_owned()));
        }
        // Lone surrogates cannot be UTF-8; they become U+FFFD.
        return Ok(Value::Str(s.to_string_lossy().into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        if bytes.len() >= REFER_FROM {
            // SAFETY: a bytes object's data is immutable and lives as long as it does; `owner` holds it.
            return Ok(Value::Host(unsafe { HostBuffer::new(false, bytes, owner(obj)) }));
        }
        return Ok(Value::Bytes(bytes.to_vec()));
    }
    let items = |iter: &mut dyn Iterator<Item = Bound<'_, PyAny>>, seen: &mut usize| -> Result<Vec<Value>> {
        iter.enumerate()
            .map(|(i, item)| to_value_at(&item, depth + 1, seen).map_err(|e| e.within(index_segment(i))))
            .collect()
    };
    if let Ok(list) = obj.cast::<PyList>() {
        return Ok(Value::List(items(&mut list.iter(), seen)?));
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return Ok(Value::Tuple(items(&mut tuple.iter(), seen)?));
    }
    if let Ok(set) = obj.cast::<PySet>() {
        return Ok(Value::Set(items(&mut set.iter(), seen)?));
    }
    if let Ok(set) = obj.cast::<PyFrozenSet>() {
        return Ok(Value::FrozenSet(items(&mut set.iter(), seen)?));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(dict.len());
        for (key, value) in dict.iter() {
            let segment = || format!("[{}]", key.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into()));
            let k = to_value_at(&key, depth + 1, seen).map_err(|e| e.within(segment()))?;
            let v = to_value_at(&value, depth + 1, seen).map_err(|e| e.within(segment()))?;
            pairs.push((k, v));
        }
        return Ok(Value::Dict(pairs));
    }
    if let Some(plain) = plain_form(obj).map_err(|e| failed(obj.py(), e))? {
        return to_value_at(&plain, depth + 1, seen);
    }
    Err(ConvertError::new(ConvertErrorKind::Unsupported { type_name: type_name(obj), direction: Direction::IntoSandbox }))
}

/// What keeps a host object alive while an encoded frame refers to its buffer.
fn owner(obj: &Bound<'_, PyAny>) -> Arc<dyn Send + Sync> {
    Arc::new(obj.clone().unbind())
}

/// Protocol data from a session as a host value. Unhashable keys or set items (a session can send any
/// shape) and cache references are errors, never panics.
pub fn from_value(value: &Value, py: Python<'_>) -> Result<Py<PyAny>> {
    // A conversion builds trees, never cycles: CPython's collector would only walk the host heap meanwhile.
    // SAFETY: called with the GIL held (`py`); the collector's previous state is restored below.
    let collector_was_on = unsafe { pyo3::ffi::PyGC_Disable() } == 1;
    let converted = from_value_at(value, py);
    if collector_was_on {
        // SAFETY: as above.
        unsafe { pyo3::ffi::PyGC_Enable() };
    }
    converted
}

fn from_value_at(value: &Value, py: Python<'_>) -> Result<Py<PyAny>> {
    let fail = |e| failed(py, e);
    let items = |values: &[Value]| -> Result<Vec<Py<PyAny>>> {
        values.iter().enumerate().map(|(i, v)| from_value_at(v, py).map_err(|e| e.within(index_segment(i)))).collect()
    };
    Ok(match value {
        Value::None => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py).expect("infallible").into_any().unbind(),
        Value::BigInt(bytes) => {
            num_bigint::BigInt::from_signed_bytes_le(bytes).into_pyobject(py).map_err(fail)?.into_any().unbind()
        }
        Value::Float(f) => PyFloat::new(py, *f).into_any().unbind(),
        Value::Str(s) => PyString::new(py, s).into_any().unbind(),
        Value::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        Value::List(values) => PyList::new(py, items(values)?).map_err(fail)?.into_any().unbind(),
        Value::Tuple(values) => PyTuple::new(py, items(values)?).map_err(fail)?.into_any().unbind(),
        Value::Set(values) => PySet::new(py, items(values)?).map_err(fail)?.into_any().unbind(),
        Value::FrozenSet(values) => PyFrozenSet::new(py, items(values)?).map_err(fail)?.into_any().unbind(),
        Value::Dict(pairs) => {
            let dict = PyDict::new(py);
            for (i, (k, v)) in pairs.iter().enumerate() {
                let k = from_value_at(k, py).map_err(|e| e.within(index_segment(i)))?;
                let v = from_value_at(v, py).map_err(|e| e.within(index_segment(i)))?;
                dict.set_item(k, v).map_err(|e| fail(e).within(index_segment(i)))?;
            }
            dict.into_any().unbind()
        }
        Value::Keep(..) | Value::Kept(_) | Value::Host(_) => {
            return Err(ConvertError::new(ConvertErrorKind::Failed("a cache reference cannot come from a session".into())))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host<'py>(py: Python<'py>, expr: &str) -> Bound<'py, PyAny> {
        let code = std::ffi::CString::new(expr).unwrap();
        py.eval(&code, None, None).unwrap()
    }

    #[test]
    fn plain_data_round_trips_unchanged() {
        Python::initialize();
        Python::attach(|py| {
            let original = host(
                py,
                "[None, True, 0, -7, 2**200, -(3**90), 1.5, float('inf'), 'héllo ✓', b'\\x00\\xff', (1, (2,)), \
                 {'k': [1, {2: 'x'}], (1, 'a'): None}, {1, 'two'}, frozenset({3})]",
            );
            let back = from_value(&to_value(&original).unwrap(), py).unwrap();
            assert!(back.bind(py).eq(&original).unwrap());
            assert!(from_value(&to_value(&host(py, "True")).unwrap(), py).unwrap().bind(py).is_instance_of::<PyBool>());
        });
    }

    #[test]
    fn a_value_shared_a_million_ways_is_refused_not_expanded() {
        Python::initialize();
        Python::attach(|py| {
            let locals = PyDict::new(py);
            py.run(c"a = [0]\nfor _ in range(64): a = [a, a]", None, Some(&locals)).unwrap();
            let err = to_value(&locals.get_item("a").unwrap().unwrap()).unwrap_err();
            assert!(matches!(err.kind, ConvertErrorKind::TooLarge), "{err:?}");
        });
    }

    #[test]
    fn unsupported_host_values_name_their_path() {
        Python::initialize();
        Python::attach(|py| {
            let err = to_value(&host(py, "{'a': [1, object()]}")).unwrap_err();
            assert!(err.describe("x").starts_with("x['a'][1] has type 'object', which cannot enter the sandbox"));
        });
    }

    #[test]
    fn hostile_shapes_from_a_session_are_errors() {
        Python::initialize();
        Python::attach(|py| {
            let unhashable_key = Value::Dict(vec![(Value::List(vec![]), Value::None)]);
            assert!(from_value(&unhashable_key, py).is_err());
            assert!(from_value(&Value::Set(vec![Value::Dict(vec![])]), py).is_err());
            assert!(from_value(&Value::Kept(1), py).is_err());
        });
    }
}
