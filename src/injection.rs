//! Variables from the host. RLM injects the same input on every `execute()`, and converting a 10 MB string
//! again costs milliseconds each time. Large immutable host values (exactly `str` or `bytes`) are remembered
//! from one `execute()` to the next with their sandbox copy: when the very same host object comes again,
//! its copy is bound again instead of a new one. Both sides are immutable, so the copy is still exact.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use rustpython_vm::{PyObjectRef, VirtualMachine};

use crate::convert;

/// Smaller values convert faster than a lookup is worth remembering.
const REMEMBERED_FROM_BYTES: usize = 4096;

#[derive(Default)]
pub struct Injections {
    /// The large immutable values of the last `execute()`, host object first.
    previous: Vec<(Py<PyAny>, PyObjectRef)>,
}

impl Injections {
    /// Every variable converted, before any is bound, so a bad one leaves the session untouched.
    pub fn convert(
        &mut self,
        variables: &Bound<'_, PyDict>,
        vm: &VirtualMachine,
    ) -> Result<Vec<(String, PyObjectRef)>, String> {
        let mut remembered = Vec::new();
        let mut bindings = Vec::with_capacity(variables.len());
        for (name, value) in variables.iter() {
            let name: String = name.extract().map_err(|_| "variable names must be str".to_owned())?;
            let known = self.previous.iter().find(|(host, _)| host.is(&value)).map(|(_, copy)| copy.clone());
            let converted = match known {
                Some(copy) => copy,
                None => convert::to_sandbox(&value, vm).map_err(|e| e.describe(&format!("variable '{name}': {name}")))?,
            };
            if is_large_immutable(&value) {
                remembered.push((value.unbind(), converted.clone()));
            }
            bindings.push((name, converted));
        }
        // The caller holds the GIL: the host values no longer remembered are released here.
        self.previous = remembered;
        Ok(bindings)
    }

    /// Let go of every remembered value (with the GIL: they include host objects).
    pub fn clear(&mut self) {
        crate::state::release_with_gil(std::mem::take(&mut self.previous));
    }
}

fn is_large_immutable(value: &Bound<'_, PyAny>) -> bool {
    if value.is_exact_instance_of::<PyString>() {
        value.len().is_ok_and(|chars| chars >= REMEMBERED_FROM_BYTES)
    } else if value.is_exact_instance_of::<PyBytes>() {
        value.len().is_ok_and(|bytes| bytes >= REMEMBERED_FROM_BYTES)
    } else {
        false
    }
}
