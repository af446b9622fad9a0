//! The session-process end: what runs inside the process that holds a session's VM. `confine` limits what
//! that process can do, `convert` turns protocol values into sandbox objects and back,
//! `fault` reports the signal a dying session process dies of.

pub mod confine;
pub mod convert;
pub mod fault;
