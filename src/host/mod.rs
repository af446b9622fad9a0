//! The host end of the session processes: what runs in the user's CPython process. `session` is the
//! handle Python holds (with `session::rollback`, which brings it back after its process dies), `process`
//! its hold on one session process (spawn, take over, kill), `lineage` the processes a session's process
//! and its copies share an identity with (ended with the last handle on them), `journal` the runs since the last checkpoint
//! (replayed on rollback), `tools` calls the host's tools for a session, `outcome` turns results into what
//! Python gets, `convert` turns host values into protocol values and back (`known`: the kinds beyond plain data), `mounts` serves the host folders mounted
//! in sessions, `options` every option of a session, with its default and its check.

pub mod convert;
pub mod file_server;
pub mod journal;
pub mod known;
pub mod lineage;
pub mod mounts;
pub mod options;
pub mod outcome;
pub mod process;
pub mod session;
pub mod tools;
