//! The session-process end: what runs inside the process that holds a session's VM. `convert` turns
//! protocol values into sandbox objects and back.

pub mod convert;
