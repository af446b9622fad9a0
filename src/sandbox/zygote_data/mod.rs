//! What a zygote reads from the host before it serves, so that sessions find it in memory: time-zone data
//! (`tzdata`), a package set's files (`bundle`), both read through `preread`.

pub mod bundle;
mod preread;
pub mod tzdata;
