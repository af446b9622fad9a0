//! The host end of a session process: what runs in the user's CPython process. `convert` turns host values
//! into protocol values and back.

pub mod convert;
