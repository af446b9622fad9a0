//! The session-process end: what runs inside the zygote and the processes it forks. `zygote` prepares a VM
//! and forks sessions, `session` is one session process's life (serve, checkpoint, fork), `run` one
//! `execute()`, `monitor` the thread that enforces limits while code runs, `confine` limits what the
//! process can do, `fault` reports how a session process dies, `convert` turns protocol values into
//! sandbox objects and back.

pub mod confine;
pub mod fault;
pub mod monitor;
pub mod run;
pub mod session;
pub mod zygote;
