//! Native core of dspy-rust-interpreter: one sandboxed RustPython VM per session, each owned by its own
//! worker thread, driven from CPython through the private extension module `dspy_rust_interpreter._native`.
//!
//! One module per concern: `sandbox` builds a VM and its module allow-list, `worker_thread` owns the
//! thread and its job loop, `session` is the handle CPython holds, `handoff` passes jobs and outcomes
//! between the two, `python_thread` keeps the worker registered with CPython, `thread_context` makes
//! reusing a worker thread safe, `convert` moves values across, `injection` remembers large inputs
//! between runs, `tools` and `finish` are the sandbox's host-facing functions, `output` captures printing,
//! `limits` stops runaway code, `memory` counts and bounds what each VM allocates, `native_recursion`
//! bounds native iterator chains, `rescue` keeps a fatal signal on a worker thread from ending the
//! process, `errors` reports failures.
//!
//! Being built (issue 12, docs/process-isolation.md): `protocol` (the wire between host and session
//! process), `host` (its host end), `worker` (the session-process end). They replace the worker threads.

mod convert;
mod errors;
mod finish;
#[allow(dead_code)]
mod host;
mod handoff;
mod injection;
mod limits;
mod memory;
mod native_recursion;
mod output;
// The host <-> session-process protocol of the process-isolation design (issue 12); its ends land next.
#[allow(dead_code)]
mod protocol;
mod python_thread;
mod rescue;
mod sandbox;
mod session;
mod state;
mod thread_context;
mod tools;
#[allow(dead_code)]
mod worker;
mod worker_thread;

use pyo3::prelude::*;

#[global_allocator]
static ALLOCATOR: memory::CountingAllocator = memory::CountingAllocator;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<session::Session>()?;
    // Raised by PyO3 when Rust code behind a method panics; the Python layer turns it into a dead session.
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    Ok(())
}
