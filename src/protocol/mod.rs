//! What the host and a session process say to each other, shared by both ends: `message` the requests and
//! replies (`files` those of the sandbox's filesystem), `value` the plain data that crosses (`when` its dates
//! and times, `library_data` numpy's and pandas' values), all plain types deriving serde's traits; `codec` puts them on the wire in `wire`'s binary
//! encoding, and `channel` moves framed messages (and file descriptors) over a Unix socket.
//!
//! The session side is untrusted: every decoder checks lengths, depth and UTF-8, and a malformed message is
//! an error for that session only.

pub mod channel;
pub mod codec;
pub mod conversion;
pub mod files;
pub mod library_data;
pub mod message;
pub mod options;
pub mod process;
pub mod value;
pub mod when;
pub mod wire;
