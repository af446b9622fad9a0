//! Host values (CPython, through PyO3) <-> protocol `Value`s. Into the protocol: the plain-data set, plus
//! the known kinds of `host::known` (models, dataclasses, named tuples, enums, paths, dates, decimals,
//! UUIDs); anything else is refused, or, where the caller allows it (tool results, as dspy does), crosses as
//! its str(). Every value is counted, so a host value that shares sub-lists a million ways is refused
//! instead of expanded for ever. Out of it: only what a session may send back (no `Keep`/`Kept`, no host
//! kinds), checked again, as the session process is not trusted.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};

use crate::host::known::{self, Form};
use crate::protocol::conversion::{index_segment, ConvertError, ConvertErrorKind, Direction};
use crate::protocol::library_data::{self, LIBRARIES};
use crate::protocol::value::{Value, CONTAINER_DATA, MAX_DEPTH, MAX_VALUES, MAX_WIDENED, PER_VALUE};
use crate::protocol::wire::{HostBuffer, REFER_FROM};

type Result<T> = std::result::Result<T, ConvertError>;

/// A host value as protocol data for a session whose sandbox has `libraries` (numpy, pandas: their values
/// cross as `Value::Library`); a value of no known kind is refused.
pub fn to_value(obj: &Bound<'_, PyAny>, libraries: &[String]) -> Result<Value> {
    Walk::new(false, None, libraries).value(obj, 0)
}

/// A tool's result as protocol data, refused past `max_data` bytes of data (counted as `Value::data_size`, while
/// walking: a result far over is not converted whole). With `unknown_as_str`, a value of no known kind (or one
/// whose conversion fails) crosses as its str(); the type names of those that did come back, for a warning.
pub fn to_result_value(
    obj: &Bound<'_, PyAny>,
    unknown_as_str: bool,
    max_data: Option<usize>,
    libraries: &[String],
) -> Result<(Value, Vec<String>)> {
    let mut walk = Walk::new(unknown_as_str, max_data, libraries);
    let value = walk.value(obj, 0)?;
    Ok((value, walk.as_str))
}

struct Walk<'a> {
    seen: usize,
    unknown_as_str: bool,
    /// The type names of the values that crossed as their str() (each name once).
    as_str: Vec<String>,
    /// The data counted so far, and the most allowed.
    data: usize,
    max_data: Option<usize>,
    /// The libraries the session's sandbox has (of `library_data::LIBRARIES`).
    libraries: &'a [String],
    /// Walking a library value's parts, where an array's data is a `HostBytes`.
    in_library: bool,
}

impl<'a> Walk<'a> {
    fn new(unknown_as_str: bool, max_data: Option<usize>, libraries: &'a [String]) -> Self {
        Walk { seen: 0, unknown_as_str, as_str: Vec::new(), data: 0, max_data, libraries, in_library: false }
    }

    /// Count `size` bytes of data against the budget.
    fn spend(&mut self, size: usize) -> Result<()> {
        self.data = self.data.saturating_add(size);
        match self.max_data {
            Some(limit) if self.data > limit => {
                Err(ConvertError::new(ConvertErrorKind::OverBudget { limit, seen: self.data }))
            }
            _ => Ok(()),
        }
    }

    /// A value with no items, counted.
    fn leaf(&mut self, value: Value) -> Result<Value> {
        self.spend(value.own_data_size())?;
        Ok(value)
    }

    fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(ConvertError::new(ConvertErrorKind::TooDeep));
        }
        self.seen += 1;
        if self.seen > MAX_VALUES {
            return Err(ConvertError::new(ConvertErrorKind::TooLarge));
        }
        if obj.is_none() {
            return self.leaf(Value::None);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return self.leaf(Value::Bool(b.is_true()));
        }
        if !is_plain_type(obj) {
            if let Some(library) = self.library(obj, depth)? {
                return Ok(library);
            }
        }
        if obj.is_instance_of::<PyInt>() {
            if let Ok(small) = obj.extract::<i64>() {
                return self.leaf(Value::Int(small));
            }
            let big: num_bigint::BigInt = obj.extract().map_err(|e| failed(obj.py(), e))?;
            return self.leaf(Value::BigInt(big.to_signed_bytes_le()));
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return self.leaf(Value::Float(f.value()));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            if let Ok(text) = s.to_str() {
                if text.len() >= REFER_FROM {
                    // SAFETY: a str's UTF-8 is immutable and lives as long as the str, which `owner` holds.
                    return self.leaf(Value::Host(unsafe { HostBuffer::new(true, text.as_bytes(), owner(obj)) }));
                }
                return self.leaf(Value::Str(text.to_owned()));
            }
            // Lone surrogates cannot be UTF-8; each becomes one U+FFFD.
            return self.leaf(Value::Str(surrogates_replaced(s)));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            let bytes = b.as_bytes();
            if bytes.len() >= REFER_FROM {
                // SAFETY: a bytes object's data is immutable and lives as long as it does; `owner` holds it.
                return self.leaf(Value::Host(unsafe { HostBuffer::new(false, bytes, owner(obj)) }));
            }
            return self.leaf(Value::Bytes(bytes.to_vec()));
        }
        if self.in_library && is_host_bytes(obj) {
            return self.array_data(obj);
        }
        if let Ok(list) = obj.cast::<PyList>() {
            self.spend(CONTAINER_DATA)?;
            return Ok(Value::List(self.items(&mut list.iter(), depth)?));
        }
        if let Ok(tuple) = obj.cast::<PyTuple>() {
            // A named tuple crosses as the dict of its fields, as dspy's interpreter passes it.
            match known::named_tuple_fields(obj) {
                Ok(Some(fields)) => return self.value(&fields, depth + 1),
                Ok(None) => {
                    self.spend(CONTAINER_DATA)?;
                    return Ok(Value::Tuple(self.items(&mut tuple.iter(), depth)?));
                }
                Err(e) => return self.unknown(obj, Some(failed(obj.py(), e))),
            }
        }
        if let Ok(set) = obj.cast::<PySet>() {
            self.spend(CONTAINER_DATA)?;
            return Ok(Value::Set(self.items(&mut set.iter(), depth)?));
        }
        if let Ok(set) = obj.cast::<PyFrozenSet>() {
            self.spend(CONTAINER_DATA)?;
            return Ok(Value::FrozenSet(self.items(&mut set.iter(), depth)?));
        }
        if let Ok(dict) = obj.cast::<PyDict>() {
            self.spend(CONTAINER_DATA)?;
            let mut pairs = Vec::with_capacity(dict.len());
            for (key, value) in dict.iter() {
                let segment = || format!("[{}]", key.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into()));
                let k = self.value(&key, depth + 1).map_err(|e| e.within(segment()))?;
                let v = self.value(&value, depth + 1).map_err(|e| e.within(segment()))?;
                pairs.push((k, v));
            }
            return Ok(Value::Dict(pairs));
        }
        match known::form(obj) {
            Ok(Some(Form::Instead(plain))) => self.value(&plain, depth + 1),
            Ok(Some(Form::Value(value))) => {
                self.spend(value.data_size())?;
                Ok(value)
            }
            Ok(None) => self.unknown(obj, None),
            Err(e) => self.unknown(obj, Some(failed(obj.py(), e))),
        }
    }

    /// A value of numpy's or pandas' as its kind and parts (`library_data.py`), when the session has that
    /// library; None for a value of any other module.
    fn library(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Result<Option<Value>> {
        let py = obj.py();
        let module = match obj.get_type().module() {
            Ok(module) => module.to_string(),
            Err(_) => return Ok(None),
        };
        let top = module.split('.').next().unwrap_or_default();
        if !LIBRARIES.contains(&top) {
            return Ok(None);
        }
        if !self.libraries.iter().any(|name| name == top) {
            if self.unknown_as_str {
                return self.unknown(obj, None).map(Some);
            }
            return Err(ConvertError::new(ConvertErrorKind::NeedsPackage {
                type_name: format!("{module}.{}", type_name(obj)),
                package: top.to_owned(),
            }));
        }
        let parts = library_data::module(py)
            .and_then(|data| data.call_method1(pyo3::intern!(py, "parts_of"), (obj, false)))
            .map_err(|e| failed(py, e))?;
        if parts.is_none() {
            return self.unknown(obj, None).map(Some);
        }
        let (kind, parts): (String, Bound<'_, PyAny>) = parts.extract().map_err(|e| failed(py, e))?;
        self.spend(kind.len())?;
        let in_library = std::mem::replace(&mut self.in_library, true);
        let parts = self.value(&parts, depth + 1);
        self.in_library = in_library;
        Ok(Some(Value::Library(kind, Box::new(parts?))))
    }

    /// An array's data (`library_data.HostBytes`), written into the frame from the array's own memory.
    fn array_data(&mut self, obj: &Bound<'_, PyAny>) -> Result<Value> {
        let py = obj.py();
        let read = || -> PyResult<(usize, usize)> {
            Ok((
                obj.getattr(pyo3::intern!(py, "address"))?.extract()?,
                obj.getattr(pyo3::intern!(py, "size"))?.extract()?,
            ))
        };
        let (address, size) = read().map_err(|e| failed(py, e))?;
        // SAFETY: `HostBytes` holds a contiguous array of `size` bytes at `address` (`__array_interface__`),
        // which lives and keeps its size while `owner` holds the `HostBytes`: numpy refuses to resize an array
        // referred to elsewhere.
        let bytes = unsafe { std::slice::from_raw_parts(address as *const u8, size) };
        if size >= REFER_FROM {
            // SAFETY: as above.
            return self.leaf(Value::Host(unsafe { HostBuffer::new(false, bytes, owner(obj)) }));
        }
        self.leaf(Value::Bytes(bytes.to_vec()))
    }

    fn items(&mut self, iter: &mut dyn Iterator<Item = Bound<'_, PyAny>>, depth: usize) -> Result<Vec<Value>> {
        iter.enumerate().map(|(i, item)| self.value(&item, depth + 1).map_err(|e| e.within(index_segment(i)))).collect()
    }

    /// A value of no known kind, or of one whose conversion failed with `error`: its str() where allowed.
    fn unknown(&mut self, obj: &Bound<'_, PyAny>, error: Option<ConvertError>) -> Result<Value> {
        if !self.unknown_as_str {
            return Err(error.unwrap_or_else(|| {
                ConvertError::new(ConvertErrorKind::Unsupported {
                    type_name: type_name(obj),
                    direction: Direction::IntoSandbox,
                })
            }));
        }
        let name = type_name(obj);
        if !self.as_str.contains(&name) {
            self.as_str.push(name.clone());
        }
        let text = obj.str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("<{name} object>"));
        self.leaf(Value::Str(without_addresses(&text)))
    }
}

/// Whether `obj` is exactly one of the plain types (not a subclass: numpy's `float64` is a float subclass that
/// crosses as itself).
fn is_plain_type(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyFloat>()
        || obj.is_exact_instance_of::<PyString>()
        || obj.is_exact_instance_of::<PyBytes>()
        || obj.is_exact_instance_of::<PyList>()
        || obj.is_exact_instance_of::<PyDict>()
        || obj.is_exact_instance_of::<PyTuple>()
        || obj.is_exact_instance_of::<PySet>()
        || obj.is_exact_instance_of::<PyFrozenSet>()
}

/// Whether `obj` is an array's data from `library_data.parts_of`.
fn is_host_bytes(obj: &Bound<'_, PyAny>) -> bool {
    let py = obj.py();
    library_data::module(py)
        .and_then(|module| module.getattr(pyo3::intern!(py, "HostBytes")))
        .is_ok_and(|class| obj.get_type().is(&class))
}

/// `text` without the host memory addresses that default reprs carry (`<object object at 0x7f...>` becomes
/// `<object object>`): the sandbox learns nothing of the host's address space from a fallback str.
fn without_addresses(text: &str) -> String {
    const MARK: &str = " at 0x";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let digits = rest[at + MARK.len()..].bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(&rest[..at]);
        if digits == 0 {
            out.push_str(MARK);
        }
        rest = &rest[at + MARK.len() + digits..];
    }
    out.push_str(rest);
    out
}

/// What keeps a host object alive while an encoded frame refers to its buffer.
fn owner(obj: &Bound<'_, PyAny>) -> Arc<dyn Send + Sync> {
    Arc::new(obj.clone().unbind())
}

/// Protocol data from a session as a host value. Unhashable keys or set items (a session can send any
/// shape) and cache references are errors, never panics; so are keys whose hashes collide and strs that would
/// take the host far more than their UTF-8 (see `Build`).
pub fn from_value(value: &Value, py: Python<'_>) -> Result<Py<PyAny>> {
    // A conversion builds trees, never cycles: CPython's collector would only walk the host heap meanwhile.
    // SAFETY: called with the GIL held (`py`); the collector's previous state is restored below.
    let collector_was_on = unsafe { pyo3::ffi::PyGC_Disable() } == 1;
    let converted = Build { compared: 0, built: 0, widened: 0 }.value(value, py);
    if collector_was_on {
        // SAFETY: as above.
        unsafe { pyo3::ffi::PyGC_Enable() };
    }
    converted
}

/// Bytes CPython may compare to insert the dict keys or set items of one value that share a hash on the host.
/// Values that hash apart in the sandbox can hash alike here (`class K(int)` with a `__hash__` of its own
/// crosses as a plain int; tuples' other items can be chosen to make CPython's tuple hashes collide),
/// and CPython inserts n keys of one hash in n*n/2 comparisons, holding the GIL: 32,000 such keys take the host
/// many seconds, and 2,000 tuples each holding its own copy of one 60 KB int longer still (the sandbox compares
/// its one int by identity). Each pair is charged the bytes it may read (`check_spread`), a small key `PER_VALUE`:
/// past this budget (about a tenth of a second: 2 million pairs of small keys) the value is refused.
const MAX_COMPARED: u64 = (PER_VALUE as u64) << 21;
/// Collections smaller than this are not checked: they cannot cost more than a few comparisons per key.
const CHECK_SPREAD_FROM: usize = 16;

struct Build {
    /// Bytes charged so far for comparing keys that share a hash (see `MAX_COMPARED`).
    compared: u64,
    /// Bytes built so far, as the host holds them (`Value::host_size`): the size of a key is the growth while
    /// it is built.
    built: usize,
    /// Bytes the strs built so far take beyond their UTF-8 (see `MAX_WIDENED`).
    widened: usize,
}

impl Build {
    fn value(&mut self, value: &Value, py: Python<'_>) -> Result<Py<PyAny>> {
        let fail = |e| failed(py, e);
        self.count(value)?;
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
            Value::List(values) => PyList::new(py, self.items(values, py)?).map_err(fail)?.into_any().unbind(),
            Value::Tuple(values) => PyTuple::new(py, self.items(values, py)?).map_err(fail)?.into_any().unbind(),
            Value::Set(values) | Value::FrozenSet(values) => {
                let (items, sizes) = self.sized_items(values, py)?;
                self.check_spread(py, &items, &sizes)?;
                match value {
                    Value::Set(_) => PySet::new(py, items).map_err(fail)?.into_any().unbind(),
                    _ => PyFrozenSet::new(py, items).map_err(fail)?.into_any().unbind(),
                }
            }
            Value::Dict(pairs) => {
                let mut keys = Vec::with_capacity(pairs.len());
                let mut sizes = Vec::with_capacity(pairs.len());
                let mut values = Vec::with_capacity(pairs.len());
                for (i, (k, v)) in pairs.iter().enumerate() {
                    let before = self.built;
                    keys.push(self.value(k, py).map_err(|e| e.within(index_segment(i)))?);
                    sizes.push(self.built.saturating_sub(before));
                    values.push(self.value(v, py).map_err(|e| e.within(index_segment(i)))?);
                }
                self.check_spread(py, &keys, &sizes)?;
                let dict = PyDict::new(py);
                for (i, (k, v)) in keys.into_iter().zip(values).enumerate() {
                    dict.set_item(k, v).map_err(|e| fail(e).within(index_segment(i)))?;
                }
                dict.into_any().unbind()
            }
            Value::Keep(..) | Value::Kept(_) | Value::Host(_) => {
                return Err(ConvertError::new(ConvertErrorKind::Failed(
                    "a cache reference cannot come from a session".into(),
                )))
            }
            Value::When(_) | Value::Decimal(_) | Value::Uuid(_) => {
                return Err(ConvertError::new(ConvertErrorKind::Failed(
                    "a host kind of value cannot come from a session".into(),
                )))
            }
            Value::Library(kind, parts) => {
                let parts = self.value(parts, py)?;
                let made = library_data::module(py)
                    .and_then(|data| data.call_method1(pyo3::intern!(py, "make"), (kind, parts)));
                made.map_err(|e| failed(py, e).within(format!(" (a {kind})")))?.unbind()
            }
        })
    }

    fn items(&mut self, values: &[Value], py: Python<'_>) -> Result<Vec<Py<PyAny>>> {
        values.iter().enumerate().map(|(i, v)| self.value(v, py).map_err(|e| e.within(index_segment(i)))).collect()
    }

    /// `items`, with the bytes built for each (what comparing it with another may read).
    fn sized_items(&mut self, values: &[Value], py: Python<'_>) -> Result<(Vec<Py<PyAny>>, Vec<usize>)> {
        let mut items = Vec::with_capacity(values.len());
        let mut sizes = Vec::with_capacity(values.len());
        for (i, value) in values.iter().enumerate() {
            let before = self.built;
            items.push(self.value(value, py).map_err(|e| e.within(index_segment(i)))?);
            sizes.push(self.built.saturating_sub(before));
        }
        Ok((items, sizes))
    }

    /// Count `value` itself (not its items) as the host will hold it, before it is built: a str is refused
    /// unbuilt once the value's strs would take the host `MAX_WIDENED` more than their UTF-8.
    fn count(&mut self, value: &Value) -> Result<()> {
        let own = value.own_host_bytes();
        self.built = self.built.saturating_add(PER_VALUE + own);
        let Value::Str(text) = value else { return Ok(()) };
        self.widened = self.widened.saturating_add(own.saturating_sub(text.len()));
        if self.widened > MAX_WIDENED {
            return Err(ConvertError::new(ConvertErrorKind::Failed(format!(
                "its strs would take the host more than {} MiB beyond their UTF-8: CPython holds a str at 1, 2 or 4 \
                 bytes a character, by its widest (one emoji makes each character of its str 4 bytes); send less \
                 of such text, or send it as bytes (str.encode())",
                MAX_WIDENED >> 20
            ))));
        }
        Ok(())
    }

    /// Refuse keys whose hashes collide past the value's budget, before CPython inserts them. The hashes are
    /// CPython's own (an unhashable key fails here as it would on insertion); grouped by sorting them, which
    /// no choice of keys can slow down. CPython compares a key with each earlier one of its hash, and a
    /// comparison reads at most the smaller of the two (`sizes`: the bytes built for each key), so each such
    /// pair is charged that: equal keys of 60 KB cost as much as 60 KB compared, not as one pair.
    fn check_spread(&mut self, py: Python<'_>, keys: &[Py<PyAny>], sizes: &[usize]) -> Result<()> {
        if keys.len() < CHECK_SPREAD_FROM {
            return Ok(());
        }
        let mut hashes = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            hashes.push((key.bind(py).hash().map_err(|e| failed(py, e).within(index_segment(i)))?, sizes[i]));
        }
        // By hash, then by size: in a run of n keys of one hash, the k-th smallest is the smaller of its pair
        // with each of the n - 1 - k after it.
        hashes.sort_unstable();
        let mut distinct = 0;
        for run in hashes.chunk_by(|a, b| a.0 == b.0) {
            distinct += 1;
            for (k, &(_, size)) in run.iter().enumerate() {
                let larger = (run.len() - 1 - k) as u64;
                self.compared = self.compared.saturating_add(larger.saturating_mul(size as u64));
            }
        }
        if self.compared > MAX_COMPARED {
            return Err(ConvertError::new(ConvertErrorKind::Failed(format!(
                "its keys or items would share their hashes on the host ({} keys of {distinct} distinct hashes in \
                 a collection; CPython would compare about {} MiB of them to insert them, past the {} MiB a value \
                 may; e.g. int subclasses with a __hash__ of their own, or tuples made to collide): send plain \
                 values, or a list of pairs instead of a dict or set",
                keys.len(),
                self.compared >> 20,
                MAX_COMPARED >> 20
            ))));
        }
        Ok(())
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

fn failed(py: Python<'_>, err: PyErr) -> ConvertError {
    ConvertError::new(ConvertErrorKind::Failed(err.value(py).to_string()))
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
            let back = from_value(&to_value(&original, &[]).unwrap(), py).unwrap();
            assert!(back.bind(py).eq(&original).unwrap());
            assert!(from_value(&to_value(&host(py, "True"), &[]).unwrap(), py)
                .unwrap()
                .bind(py)
                .is_instance_of::<PyBool>());
        });
    }

    #[test]
    fn a_value_shared_a_million_ways_is_refused_not_expanded() {
        Python::initialize();
        Python::attach(|py| {
            let locals = PyDict::new(py);
            py.run(c"a = [0]\nfor _ in range(64): a = [a, a]", None, Some(&locals)).unwrap();
            let err = to_value(&locals.get_item("a").unwrap().unwrap(), &[]).unwrap_err();
            assert!(matches!(err.kind, ConvertErrorKind::TooLarge), "{err:?}");
        });
    }

    #[test]
    fn unsupported_host_values_name_their_path() {
        Python::initialize();
        Python::attach(|py| {
            let err = to_value(&host(py, "{'a': [1, object()]}"), &[]).unwrap_err();
            assert!(err.describe("x").starts_with("x['a'][1] has type 'object', which cannot enter the sandbox"));
        });
    }

    #[test]
    fn a_fallback_str_carries_no_host_address() {
        assert_eq!(without_addresses("<object object at 0x7fab59da7db0>"), "<object object>");
        assert_eq!(without_addresses("[<f at 0x1>, <g at 0xZ>] at 0x"), "[<f>, <g at 0xZ>] at 0x");
        assert_eq!(without_addresses("plain text"), "plain text");
    }

    #[test]
    fn keys_whose_hashes_collide_on_the_host_are_refused_before_insertion() {
        Python::initialize();
        Python::attach(|py| {
            // i * (2**61 - 1) all hash to 0 in CPython: inserting 32,000 of them takes the host many seconds.
            let modulus = num_bigint::BigInt::from((1u64 << 61) - 1);
            let colliding: Vec<Value> =
                (1..=32_000u64).map(|i| Value::BigInt((&modulus * i).to_signed_bytes_le())).collect();
            let started = std::time::Instant::now();
            let err = from_value(&Value::Set(colliding.clone()), py).unwrap_err();
            assert!(err.describe("r").contains("share their hashes"), "{}", err.describe("r"));
            let pairs = colliding.into_iter().map(|k| (k, Value::None)).collect();
            assert!(from_value(&Value::Dict(pairs), py).is_err());
            assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
            // Many small collections count against one budget for the whole value.
            let small: Vec<Value> = (0..2_000)
                .map(|j: u64| {
                    Value::Set(
                        (1..=100u64).map(|i| Value::BigInt((&modulus * (i + 100 * j)).to_signed_bytes_le())).collect(),
                    )
                })
                .collect();
            assert!(from_value(&Value::List(small), py).is_err());
            // Ordinary keys pass, however many.
            let plain = Value::Set((0..200_000).map(Value::Int).collect());
            assert_eq!(from_value(&plain, py).unwrap().bind(py).len().unwrap(), 200_000);
        });
    }

    #[test]
    fn keys_that_share_a_hash_are_charged_the_bytes_their_comparisons_read() {
        Python::initialize();
        Python::attach(|py| {
            // 2,000 ints of 60 KB that differ in their lowest digits only, all of one hash: 1,999,000 pairs (under
            // the 2 million pairs counted before), each comparison reading 60 KB.
            let modulus = num_bigint::BigInt::from((1u64 << 61) - 1);
            let big = &modulus << 480_000usize;
            let key = |i: u64, step: &num_bigint::BigInt| Value::BigInt((&big + step * i).to_signed_bytes_le());
            let colliding: Vec<Value> = (1..=2_000).map(|i| key(i, &modulus)).collect();
            let started = std::time::Instant::now();
            let err = from_value(&Value::Set(colliding), py).unwrap_err();
            assert!(err.describe("r").contains("share their hashes"), "{}", err.describe("r"));
            assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
            // As large keys of distinct hashes pass, however many.
            let apart = Value::Set((1..=2_000).map(|i| key(i, &num_bigint::BigInt::from(1))).collect());
            assert_eq!(from_value(&apart, py).unwrap().bind(py).len().unwrap(), 2_000);
        });
    }

    #[test]
    fn strs_are_built_within_a_bound_beyond_their_utf8() {
        Python::initialize();
        Python::attach(|py| {
            // One emoji makes a megabyte of ASCII 4 MiB on the host, 3 MiB more than it came as.
            let wide = Value::Str("x".repeat(1 << 20) + "😀");
            let err = from_value(&Value::List(vec![wide.clone(); 30]), py).unwrap_err();
            let described = err.describe("r");
            assert!(described.starts_with("r[21] "), "{described}");
            assert!(described.contains("1, 2 or 4 bytes a character"), "{described}");
            // Text no wider on the host than its UTF-8 costs none of the bound (3 bytes a character, built as 2).
            let mut within = vec![wide; 21];
            within.extend(std::iter::repeat_n(Value::Str("✓".repeat(1 << 20)), 8));
            assert!(from_value(&Value::List(within), py).is_ok());
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
            // Dates, decimals and UUIDs only go into a session: one sent back is refused, not built.
            assert!(from_value(&Value::Decimal("1".into()), py).is_err());
            assert!(from_value(&Value::Uuid(1), py).is_err());
            let date = crate::protocol::when::When::Date { year: 0, month: 13, day: 99 };
            assert!(from_value(&Value::When(date), py).is_err());
        });
    }
}

/// A str holding lone surrogates as UTF-8, each surrogate one U+FFFD, so the text keeps its length (PyO3's
/// lossy conversion makes three of each, so `len("a\ud800")` would be 4 in the sandbox).
fn surrogates_replaced(s: &Bound<'_, PyString>) -> String {
    let Ok(encoded) = s.call_method1(pyo3::intern!(s.py(), "encode"), ("utf-8", "surrogatepass")) else {
        return s.to_string_lossy().into_owned();
    };
    let Ok(bytes) = encoded.cast::<PyBytes>() else { return s.to_string_lossy().into_owned() };
    let mut text = String::new();
    for piece in bytes.as_bytes().utf8_chunks() {
        text.push_str(piece.valid());
        // A surrogate's three bytes (ED A0-BF 80-BF) come back as one invalid piece of one byte and then two
        // of one byte each: one U+FFFD for the lead byte alone.
        if piece.invalid().first() == Some(&0xED) {
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    text
}
