//! The kinds of `Value::Library`: numpy's and pandas' values, taken apart into plain parts and made again by the
//! same library at the other end. Both ends run `library_data.py` in their CPython (the host's Python; a
//! session's, where its packages are served by CPython), one module per process, made here.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// The libraries whose values cross as `Value::Library` (a kind's name starts with its library's).
pub const LIBRARIES: &[&str] = &["numpy", "pandas"];

const SOURCE: &str = include_str!("library_data.py");

/// This process's module of `library_data.py` (`parts_of(obj, as_bytes)`, `make(kind, parts)`), made once.
pub fn module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || {
            let code = std::ffi::CString::new(SOURCE).expect("the source has no NUL");
            PyModule::from_code(py, &code, c"library_data.py", c"_dspy_library_data").map(Bound::unbind)
        })
        .map(|module| module.bind(py))
}
