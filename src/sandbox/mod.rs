//! The sandbox: a RustPython VM made to run model-written code as CPython would, inside a session process.
//! By concept, each layer using only those above it in this list:
//!
//! - `vm`: the VM's own machinery and its hardening: the namespace a session's code runs in, the limits that stop runaway
//!   code, the module allow-list (`stdlib`), native modules handed to their stand-ins, code objects only
//!   from the compiler, bounded native recursion, collections at safe points, error reports in CPython's words.
//! - `library`: the Python surface, as users know it: builtins, `str` methods and formatting, `re`, `set`,
//!   `collections`, `heapq`, `itertools`, sorting, and the standard-library modules written here in Python
//!   (`library/stand_ins/`).
//! - `bridge`: what connects a session to the host: tools, finish calls (`SUBMIT`/`FINAL`), values across
//!   the boundary, captured output, the session's files (the filesystem itself is Python, in `machinery/`).
//! - `cpython`: the host's compiled packages (numpy, pandas, ...) in the session process's own CPython, and the
//!   bridge the sandbox reaches them by.
//! - `rewrite`: changes to compiled cell code (line tables, constants the compiler folded, specialisations).
//! - `zygote_data`: what a zygote reads from the host before it serves (time-zone data, a package set's files).
//! - `machinery/`: the sandbox's own Python modules (`_sandbox_*`: filesystem, streams, tracebacks, imports,
//!   refusals, asyncio cells).
//! - `prepare`: builds a VM and puts the parts above together for a session.

pub mod bridge;
pub mod cpython;
pub mod library;
pub mod prepare;
pub mod rewrite;
pub mod vm;
pub mod zygote_data;
