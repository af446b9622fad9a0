//! The VM's own machinery and its hardening: the session's namespace, limits, clamps on `sys`, `time.sleep`,
//! the module allow-list, handed-over native modules, code objects, bounded native recursion, safe-point
//! collections, errors in CPython's words.

pub mod code_objects;
pub mod errors;
pub mod gc;
pub mod handed_over;
pub mod limits;
pub mod namespace;
pub mod native_recursion;
pub mod sleep;
pub mod stdlib;
pub mod sys_clamps;
pub mod wording;
