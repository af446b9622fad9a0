//! Native core of dspy-rust-interpreter: every session runs its sandboxed RustPython VM in a process of its
//! own, forked from a prepared zygote, confined, and rolled back to its last good state when it dies.
//! Built as the private extension module `dspy_rust_interpreter._native`, which the host imports and the
//! zygote runs (docs/process-isolation.md).
//!
//! - `protocol`: what host and session processes say to each other (framing, values, messages).
//! - `host`: the host's end, in the user's CPython process: the `Session` handle, its process and
//!   checkpoint, tool calls, outcomes.
//! - `worker`: the session processes: the zygote, one session's life, a run, the monitor thread,
//!   confinement, fault reports.
//! - The sandbox the worker runs: `sandbox` builds a VM and its module allow-list, `builtins` replaces
//!   builtins where CPython's behave differently or run much faster, `tools` and `finish` are
//!   its host-facing functions, `output` captures printing, `limits` stops runaway code, `memory` counts
//!   and bounds what the VM allocates, `native_recursion` bounds native iterator chains, `errors` reports
//!   failures, `convert` holds the conversion errors both ends share, `state` the session's state.

mod host;
mod memory;
mod protocol;
mod sandbox;
mod worker;

use pyo3::prelude::*;

#[global_allocator]
static ALLOCATOR: memory::CountingAllocator = memory::CountingAllocator;

/// The sandbox's table of the standard library (`src/sandbox/vm/stdlib.rs`), for the docs and the tests:
/// (module, "available" | "confined" | "refused", "native" | "python" | "stand-in" | None, what it works on or
/// why it is refused).
#[pyfunction]
fn stdlib_modules() -> Vec<(&'static str, &'static str, Option<&'static str>, String)> {
    sandbox::vm::stdlib::MODULES
        .iter()
        .map(|(name, standing)| {
            let (kind, source, note) = sandbox::vm::stdlib::describe(*standing);
            (*name, kind, source, note)
        })
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<host::session::Session>()?;
    m.add_class::<host::mounts::Mount>()?;
    m.add_class::<host::options::Options>()?;
    m.add_class::<host::options::HostOptions>()?;
    m.add_class::<protocol::options::SessionOptions>()?;
    m.add_function(wrap_pyfunction!(host::mounts::check_mount_paths, m)?)?;
    m.add_class::<host::outcome::RunOutcome>()?;
    m.add_class::<protocol::message::Stop>()?;
    m.add_function(wrap_pyfunction!(worker::zygote::serve_zygote, m)?)?;
    m.add_function(wrap_pyfunction!(stdlib_modules, m)?)?;
    m.add_class::<host::tools::ToolHooks>()?;
    m.add_class::<host::tools::StreamOpened>()?;
    m.add("SYSTEM_CALL_FILTER", worker::confine::SYSTEM_CALL_FILTER)?;
    // Raised by PyO3 when Rust code behind a method panics; the Python layer turns it into a dead session.
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    Ok(())
}
