//! The VM's own machinery and its hardening: per-session state, limits, the module allow-list, handed-over
//! native modules, code objects, bounded native recursion, safe-point collections, errors in CPython's words.

pub mod code_objects;
pub mod errors;
pub mod gc;
pub mod handed_over;
pub mod limits;
pub mod namespace;
pub mod native_recursion;
pub mod state;
pub mod stdlib;
pub mod wording;
