//! What connects a session's code to the host: host tools (`tools`), the finish calls (`finish`), values
//! across the boundary (`values`), captured output (`output`), the session's files (`files`), and the one
//! channel they all ask the host through (`host`).

pub mod files;
pub mod finish;
pub mod host;
pub mod output;
pub mod tools;
pub mod values;
