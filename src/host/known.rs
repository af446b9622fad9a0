//! Host values beyond plain data that cross as their natural sandbox equivalent: pydantic models,
//! dataclasses and named tuples as dicts of their fields (as dspy's own interpreter passes them), enums as
//! their value, `os.PathLike` paths as their str, and `datetime`'s types, `Decimal` and `UUID` as themselves
//! (rebuilt by the sandbox's own modules). Only data crosses: never an object of the host.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::protocol::value::Value;
use crate::protocol::when::{Clock, When};

/// What a known kind of host value crosses as.
pub enum Form<'py> {
    /// Convert this in its place (a model's fields, an enum's value, ...).
    Instead(Bound<'py, PyAny>),
    /// This protocol value.
    Value(Value),
}

/// The form of `obj` when it is of a known kind; None when it is not. Errors are a known kind's own
/// failures (a dataclass whose fields cannot be copied, a model that cannot dump itself).
pub fn form<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Form<'py>>> {
    let py = obj.py();
    if obj.is_instance_of::<pyo3::types::PyType>() {
        return Ok(None);
    }
    let cls = obj.get_type();
    if cls.hasattr(pyo3::intern!(py, "model_dump"))? && cls.hasattr(pyo3::intern!(py, "model_fields"))? {
        return obj.call_method0(pyo3::intern!(py, "model_dump")).map(|dump| Some(Form::Instead(dump)));
    }
    if cls.hasattr(pyo3::intern!(py, "__dataclass_fields__"))? {
        let dataclasses = py.import(pyo3::intern!(py, "dataclasses"))?;
        return dataclasses.call_method1(pyo3::intern!(py, "asdict"), (obj,)).map(|fields| Some(Form::Instead(fields)));
    }
    // (Named tuples never get here: the walk takes every tuple, see `named_tuple_fields`.)
    let modules = py.import(pyo3::intern!(py, "sys"))?.getattr(pyo3::intern!(py, "modules"))?.cast_into::<PyDict>()?;
    let is_instance_of_loaded = |module: &str, class: &str| -> PyResult<bool> {
        // An object cannot be an instance of a class whose module the host never imported.
        match modules.get_item(module)? {
            Some(module) => obj.is_instance(&module.getattr(class)?),
            None => Ok(false),
        }
    };
    if let Some(datetime) = modules.get_item("datetime")? {
        if let Some(when) = when(obj, &datetime)? {
            return Ok(Some(Form::Value(Value::When(when))));
        }
    }
    if is_instance_of_loaded("enum", "Enum")? {
        return obj.getattr(pyo3::intern!(py, "value")).map(|value| Some(Form::Instead(value)));
    }
    if is_instance_of_loaded("decimal", "Decimal")? {
        return Ok(Some(Form::Value(Value::Decimal(obj.str()?.to_string()))));
    }
    if is_instance_of_loaded("uuid", "UUID")? {
        return Ok(Some(Form::Value(Value::Uuid(obj.getattr(pyo3::intern!(py, "int"))?.extract()?))));
    }
    if cls.hasattr(pyo3::intern!(py, "__fspath__"))? {
        let os = py.import(pyo3::intern!(py, "os"))?;
        return os.call_method1(pyo3::intern!(py, "fspath"), (obj,)).map(|path| Some(Form::Instead(path)));
    }
    Ok(None)
}

/// A named tuple's `_asdict()`; None for anything else (a plain tuple included). The walk asks this of every
/// tuple it meets, before any other kind is looked for.
pub fn named_tuple_fields<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    let py = obj.py();
    if !obj.is_instance_of::<PyTuple>() || obj.is_exact_instance_of::<PyTuple>() {
        return Ok(None);
    }
    let cls = obj.get_type();
    if !(cls.hasattr(pyo3::intern!(py, "_fields"))? && cls.hasattr(pyo3::intern!(py, "_asdict"))?) {
        return Ok(None);
    }
    let fields = obj.call_method0(pyo3::intern!(py, "_asdict"))?;
    // `_asdict` gives a dict (an OrderedDict on old Pythons); anything else is not a named tuple's.
    Ok(fields.cast_into::<PyDict>().ok())
}

/// `datetime`'s types (`module` is the host's `datetime`), field by field (a tz-aware value by its UTC offset).
fn when(obj: &Bound<'_, PyAny>, module: &Bound<'_, PyAny>) -> PyResult<Option<When>> {
    let py = obj.py();
    let int = |name: &str| -> PyResult<i64> { obj.getattr(name)?.extract() };
    let clock = || -> PyResult<Clock> {
        let offset = obj.call_method0(pyo3::intern!(py, "utcoffset"))?;
        Ok(Clock {
            hour: int("hour")?,
            minute: int("minute")?,
            second: int("second")?,
            microsecond: int("microsecond")?,
            fold: int("fold")? != 0,
            utc_offset_micros: if offset.is_none() { None } else { Some(delta_micros(&offset)?) },
        })
    };
    if obj.is_instance(&module.getattr("datetime")?)? {
        let (year, month, day) = (int("year")?, int("month")?, int("day")?);
        return Ok(Some(When::DateTime { year, month, day, clock: clock()? }));
    }
    if obj.is_instance(&module.getattr("date")?)? {
        return Ok(Some(When::Date { year: int("year")?, month: int("month")?, day: int("day")? }));
    }
    if obj.is_instance(&module.getattr("time")?)? {
        return Ok(Some(When::Time(clock()?)));
    }
    if obj.is_instance(&module.getattr("timedelta")?)? {
        return Ok(Some(When::TimeDelta {
            days: int("days")?,
            seconds: int("seconds")?,
            microseconds: int("microseconds")?,
        }));
    }
    Ok(None)
}

fn delta_micros(delta: &Bound<'_, PyAny>) -> PyResult<i64> {
    let part = |name: &str| -> PyResult<i64> { delta.getattr(name)?.extract() };
    let (days, seconds, micros) = (part("days")?, part("seconds")?, part("microseconds")?);
    // A `utcoffset()` of a subclass may return any timedelta: one past i64 microseconds is refused, not wrapped.
    days.checked_mul(86_400)
        .and_then(|total| total.checked_add(seconds))
        .and_then(|total| total.checked_mul(1_000_000))
        .and_then(|total| total.checked_add(micros))
        .ok_or_else(|| pyo3::exceptions::PyOverflowError::new_err("the UTC offset is out of range"))
}
