//! The messages of the sandbox's filesystem: the mounts a session is told about when it starts, the operations
//! it asks the host to do on a mount's host folder (`FileOp`, answered by `FileAnswer`), and the host API's
//! commands on the session's files (`FilesCommand`).

use serde::{Deserialize, Serialize};

use super::codec;
use super::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MountMode {
    ReadOnly = 0,
    ReadWrite = 1,
    Overlay = 2,
}

impl MountMode {
    pub fn name(self) -> &'static str {
        match self {
            MountMode::ReadOnly => "ro",
            MountMode::ReadWrite => "rw",
            MountMode::Overlay => "overlay",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "ro" => Some(MountMode::ReadOnly),
            "rw" => Some(MountMode::ReadWrite),
            "overlay" => Some(MountMode::Overlay),
            _ => None,
        }
    }
}

/// A mount as the session sees it: where it appears, its mode, and whether it is a single file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MountDecl {
    pub path: String,
    pub mode: MountMode,
    pub is_file: bool,
}

/// The quotas a session has unless its options say otherwise (the Python package's defaults are the same).
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;
pub const DEFAULT_MAX_FILES: u64 = 10_000;

/// The session's filesystem: its mounts and the quotas of its files in memory.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct FilesOptions {
    pub mounts: Vec<MountDecl>,
    pub files_max_bytes: u64,
    pub files_max_count: u64,
}

/// Bytes of file data one message carries at most, either way (a `Write`, or the `Data` answering a `Read`): a
/// session reads and writes more in several.
pub const MAX_TRANSFER: usize = 16 << 20;

/// A path below a mount's root, as names (each checked by the host before use).
pub type RelPath = Vec<String>;

/// What the session asks the host to do in mount `mount`'s host folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FileOp {
    Stat {
        mount: u32,
        path: RelPath,
    },
    List {
        mount: u32,
        path: RelPath,
    },
    Read {
        mount: u32,
        path: RelPath,
        offset: u64,
        size: u64,
    },
    /// Write `data` at `offset`; `create`: the file must not exist yet, and is made.
    Write {
        mount: u32,
        path: RelPath,
        offset: u64,
        #[serde(with = "codec::bytes")]
        data: Vec<u8>,
        create: bool,
    },
    Truncate {
        mount: u32,
        path: RelPath,
        size: u64,
    },
    Mkdir {
        mount: u32,
        path: RelPath,
    },
    Rmdir {
        mount: u32,
        path: RelPath,
    },
    Unlink {
        mount: u32,
        path: RelPath,
    },
    Rename {
        mount: u32,
        from: RelPath,
        to: RelPath,
    },
    Utime {
        mount: u32,
        path: RelPath,
        atime_ns: u64,
        mtime_ns: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileKind {
    File = 0,
    Dir = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStat {
    pub kind: FileKind,
    pub size: u64,
    pub mtime_ns: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FileAnswer {
    Done,
    Stat(FileStat),
    List(Vec<(String, FileStat)>),
    Data(#[serde(with = "codec::bytes")] Vec<u8>),
    /// The operation failed with this errno; `detail` says why when the errno alone would not.
    Failed {
        errno: i32,
        detail: String,
    },
}

impl FileOp {
    pub fn mount(&self) -> u32 {
        match self {
            FileOp::Stat { mount, .. }
            | FileOp::List { mount, .. }
            | FileOp::Read { mount, .. }
            | FileOp::Write { mount, .. }
            | FileOp::Truncate { mount, .. }
            | FileOp::Mkdir { mount, .. }
            | FileOp::Rmdir { mount, .. }
            | FileOp::Unlink { mount, .. }
            | FileOp::Rename { mount, .. }
            | FileOp::Utime { mount, .. } => *mount,
        }
    }

    /// Whether the operation changes the host folder (a read-only one can be done again on replay).
    pub fn changes_host(&self) -> bool {
        !matches!(self, FileOp::Stat { .. } | FileOp::List { .. } | FileOp::Read { .. })
    }

    /// A session's operation that is not one the host can do: data past `MAX_TRANSFER`.
    pub fn check(&self) -> Result<(), String> {
        match self {
            FileOp::Write { data, .. } if data.len() > MAX_TRANSFER => {
                Err(format!("a file write of {} bytes is over the {MAX_TRANSFER} one message may carry", data.len()))
            }
            _ => Ok(()),
        }
    }
}

/// What the host's `interp.files` asks of the session's filesystem, between runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FilesCommand {
    /// Write `data` (str or bytes) to the file at sandbox path `path`, making its directories.
    Write {
        path: String,
        data: Value,
    },
    Read {
        path: String,
    },
    /// Every file in the session's memory tree and overlays, with its size.
    List,
    /// The files the last run created or changed.
    Written,
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::protocol::wire::Reader;

    fn round_trip_op(op: FileOp) {
        let frame = codec::encode(&op).into_vec();
        assert_eq!(codec::decode::<FileOp>(Reader::new(&frame)).unwrap(), op);
    }

    #[test]
    fn every_file_op_round_trips() {
        let path = vec!["a".to_owned(), "b.txt".to_owned()];
        for op in [
            FileOp::Stat { mount: 1, path: path.clone() },
            FileOp::List { mount: 0, path: vec![] },
            FileOp::Read { mount: 2, path: path.clone(), offset: 7, size: 1 << 20 },
            FileOp::Write { mount: 0, path: path.clone(), offset: 3, data: b"xyz".to_vec(), create: true },
            FileOp::Truncate { mount: 0, path: path.clone(), size: 9 },
            FileOp::Mkdir { mount: 0, path: path.clone() },
            FileOp::Rmdir { mount: 0, path: path.clone() },
            FileOp::Unlink { mount: 0, path: path.clone() },
            FileOp::Rename { mount: 0, from: path.clone(), to: vec!["c".into()] },
            FileOp::Utime { mount: 0, path, atime_ns: 1, mtime_ns: 2 },
        ] {
            round_trip_op(op);
        }
    }

    #[test]
    fn a_bad_tag_is_an_error_not_a_panic() {
        let frame = [42u8, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(codec::decode::<FileOp>(Reader::new(&frame)).is_err());
        assert!(codec::decode::<FileAnswer>(Reader::new(&frame)).is_err());
    }
}
