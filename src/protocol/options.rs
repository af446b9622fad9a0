//! `RustInterpreter`'s options, each declared once: its name (the keyword), its type, its default, its check and
//! its doc, in an `options!` table. Two tables use it: `SessionOptions` here, what the session process needs
//! (sent with `Spawn`, enforced in the sandbox under the same names), and `host::options::HostOptions`, what
//! only the host reads (tools, mounts, quotas).
//!
//! How to add an option: one line in the table of the end that enforces it (with its `///` doc), a line in
//! `_native.pyi`, and the code that enforces it; the README's table lists it (`tests/host/test_options.py`
//! holds the README to the defaults).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A table of options: the struct (with the attributes given, e.g. a frozen pyclass whose fields Python reads),
/// its `NAMES`, `Default` (every option's default), `read` (the options given as keywords, each checked, the
/// others defaulted) and `write` (each option into a dict of keywords, as `Options(...)` takes them).
macro_rules! options {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[doc = $doc:literal])* $field:ident : $ty:ty = $default:expr, $check:expr; )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl $name {
            /// The options' names, in the table's order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The options of `given` (keywords to values: only this table's are read), each checked; the rest
            /// defaulted.
            pub fn read(given: &pyo3::Bound<'_, pyo3::types::PyDict>) -> pyo3::PyResult<Self> {
                use pyo3::types::PyDictMethods;
                let defaults = Self::default();
                Ok(Self {
                    $( $field: match given.get_item(stringify!($field))? {
                        Some(value) => $check(&value, stringify!($field))?,
                        None => defaults.$field,
                    }, )*
                })
            }

            /// Each option into `dict`, under its name.
            pub fn write(&self, dict: &pyo3::Bound<'_, pyo3::types::PyDict>) -> pyo3::PyResult<()> {
                use pyo3::types::PyDictMethods;
                $( dict.set_item(stringify!($field), self.$field.clone())?; )*
                Ok(())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }
    };
}

pub(crate) use options;

options! {
    /// The options the session process enforces, as the host's caller gave them, sent once when a session starts
    /// (a fork or a checkpoint keeps its parent's).
    #[pyclass(frozen, get_all, module = "dspy_rust_interpreter._native")]
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct SessionOptions {
        /// Seconds of sandbox execution per execute() (time inside host tools is not counted); None: no limit.
        timeout: Option<f64> = Some(30.0), seconds_or_none;
        /// Seconds that code ignoring a stop (a long native operation) gets before the session is abandoned.
        abandon_after: f64 = 5.0, seconds;
        /// Characters of text kept per execute(): past it, the head and the tail, a note between.
        max_output_chars: u64 = 2_000_000, count::<0>;
        /// Bytes the sandbox's VM may hold; growth past it is stopped with MemoryError. None: no limit.
        memory_limit: Option<u64> = Some(1 << 30), bytes_or_none;
        /// Modules imported while the sandbox is built.
        preload: Vec<String> = Vec::new(), module_names;
    }
}

/// The longest wait any limit means (about 136 years): a longer one given, infinity included, is read as this,
/// so every deadline made from it (twice the grace, a limit plus its backstop, now plus a wait) is one that both
/// Rust's clocks and Python's waits can hold.
pub const LONGEST_WAIT: Duration = Duration::from_secs(u32::MAX as u64);

impl SessionOptions {
    /// The time limit of one run, None for none.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout.map(duration)
    }

    /// How long a run that ignores a stop request (a long native operation) gets before it is abandoned.
    pub fn abandon_after(&self) -> Duration {
        duration(self.abandon_after)
    }

    /// `max_output_chars` as a count of characters in memory.
    pub fn max_output_chars(&self) -> usize {
        usize::try_from(self.max_output_chars).unwrap_or(usize::MAX)
    }

    /// `memory_limit` in bytes, bounded so that twice it and more still fit a `usize`.
    pub fn memory_limit(&self) -> Option<usize> {
        self.memory_limit.map(|limit| limit.min(usize::MAX as u64 / 4) as usize)
    }
}

fn duration(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds).unwrap_or(LONGEST_WAIT)
}

/// The error for an option whose value is not what it should be.
pub fn invalid(name: &str, should: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyValueError::new_err(format!("{name} must be {should}, got {shown}"))
}

/// A number of seconds of at least a microsecond (an int or a float, not a bool); one past `LONGEST_WAIT` is
/// that. An int's own value is read, never a subclass's `__float__`.
pub fn seconds(value: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    read_seconds(value, name, "a positive number of seconds")
}

/// The same, or None.
pub fn seconds_or_none(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<f64>> {
    optional(value, |value| read_seconds(value, name, "a positive number of seconds or None"))
}

fn read_seconds(value: &Bound<'_, PyAny>, name: &str, should: &str) -> PyResult<f64> {
    let seconds = if value.is_instance_of::<PyBool>() {
        return Err(invalid(name, should, value));
    } else if let Ok(float) = value.cast::<PyFloat>() {
        float.value()
    } else if value.is_instance_of::<PyInt>() {
        let int: num_bigint::BigInt = value.extract()?;
        num_traits::ToPrimitive::to_f64(&int).unwrap_or(f64::INFINITY)
    } else {
        return Err(invalid(name, should, value));
    };
    if seconds >= 1e-6 {
        Ok(seconds.min(LONGEST_WAIT.as_secs_f64()))
    } else {
        Err(invalid(name, should, value))
    }
}

/// An int (not a bool) of at least `LEAST`, its own value read (never a subclass's comparisons); one past u64
/// reads as u64's largest (no limit can be that large).
pub fn count<const LEAST: u64>(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    read_count(value, LEAST, name, if LEAST == 0 { "a non-negative int" } else { "a positive int" })
}

/// The same, or None.
pub fn count_or_none<const LEAST: u64>(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<u64>> {
    let should = if LEAST == 0 { "a non-negative int or None" } else { "a positive int or None" };
    optional(value, |value| read_count(value, LEAST, name, should))
}

fn read_count(value: &Bound<'_, PyAny>, least: u64, name: &str, should: &str) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(invalid(name, should, value));
    }
    let int: num_bigint::BigInt = value.extract()?;
    let number = match num_traits::ToPrimitive::to_u64(&int) {
        Some(number) => number,
        None if int.sign() == num_bigint::Sign::Plus => u64::MAX,
        None => return Err(invalid(name, should, value)),
    };
    if number < least {
        return Err(invalid(name, should, value));
    }
    Ok(number)
}

/// A positive number of bytes, or None.
pub fn bytes_or_none(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<u64>> {
    optional(value, |value| read_count(value, 1, name, "a positive number of bytes or None"))
}

/// True or False.
pub fn flag(value: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    value.cast::<PyBool>().map(|b| b.is_true()).map_err(|_| invalid(name, "True or False", value))
}

fn optional<T>(value: &Bound<'_, PyAny>, check: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<T>) -> PyResult<Option<T>> {
    if value.is_none() {
        Ok(None)
    } else {
        check(value).map(Some)
    }
}

/// A list or tuple (not a string) of the items `value` holds.
pub fn sequence<'py>(value: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = value.cast::<PyList>() {
        Some(list.iter().collect())
    } else {
        value.cast::<PyTuple>().ok().map(|tuple| tuple.iter().collect())
    }
}

/// A list or tuple of dotted module names.
pub fn module_names(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<String>> {
    let should = "a list or tuple of module names";
    let items = sequence(value).ok_or_else(|| invalid(name, should, value))?;
    items
        .iter()
        .map(|item| {
            // The string's own text (`to_str`), never a subclass's `__str__`.
            let module = item.cast::<PyString>().map_err(|_| invalid(name, should, value))?.to_str()?.to_owned();
            let each_part_an_identifier = module.split('.').all(|part| {
                PyString::new(value.py(), part)
                    .call_method0("isidentifier")
                    .and_then(|is| is.is_truthy())
                    .unwrap_or(false)
            });
            if each_part_an_identifier {
                Ok(module)
            } else {
                Err(invalid(name, should, value))
            }
        })
        .collect()
}
