//! The messages of the sandbox's filesystem: the mounts a session is told about when it starts, the operations
//! it asks the host to do on a mount's host folder (`FileOp`, answered by `FileAnswer`), and the host API's
//! commands on the session's files (`FilesCommand`).

use super::value::Value;
use super::wire::{Reader, WireError, WireResult, Writer};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        match r.u8()? {
            0 => Ok(MountMode::ReadOnly),
            1 => Ok(MountMode::ReadWrite),
            2 => Ok(MountMode::Overlay),
            other => Err(WireError::BadTag(other)),
        }
    }
}

/// A mount as the session sees it: where it appears, its mode, and whether it is a single file.
#[derive(Clone, Debug, PartialEq)]
pub struct MountDecl {
    pub path: String,
    pub mode: MountMode,
    pub is_file: bool,
}

/// The quotas a session has unless its options say otherwise (the Python package's defaults are the same).
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;
pub const DEFAULT_MAX_FILES: u64 = 10_000;

/// The session's filesystem: its mounts and the quotas of its files in memory.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FilesOptions {
    pub mounts: Vec<MountDecl>,
    pub max_bytes: u64,
    pub max_files: u64,
}

impl FilesOptions {
    pub fn write(&self, w: &mut Writer) {
        w.len(self.mounts.len());
        for mount in &self.mounts {
            w.str(&mount.path);
            w.u8(mount.mode as u8);
            w.bool(mount.is_file);
        }
        w.u64(self.max_bytes);
        w.u64(self.max_files);
    }

    pub fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let n = r.count(10)?;
        let mut mounts = Vec::with_capacity(n);
        for _ in 0..n {
            mounts.push(MountDecl { path: r.string()?, mode: MountMode::read(r)?, is_file: r.bool()? });
        }
        Ok(Self { mounts, max_bytes: r.u64()?, max_files: r.u64()? })
    }
}

/// Bytes of file data one message carries at most, either way (a `Write`, or the `Data` answering a `Read`): a
/// session reads and writes more in several.
pub const MAX_TRANSFER: usize = 16 << 20;

/// A path below a mount's root, as names (each checked by the host before use).
pub type RelPath = Vec<String>;

/// What the session asks the host to do in mount `mount`'s host folder.
#[derive(Clone, Debug, PartialEq)]
pub enum FileOp {
    Stat { mount: u32, path: RelPath },
    List { mount: u32, path: RelPath },
    Read { mount: u32, path: RelPath, offset: u64, size: u64 },
    /// Write `data` at `offset`; `create`: the file must not exist yet, and is made.
    Write { mount: u32, path: RelPath, offset: u64, data: Vec<u8>, create: bool },
    Truncate { mount: u32, path: RelPath, size: u64 },
    Mkdir { mount: u32, path: RelPath },
    Rmdir { mount: u32, path: RelPath },
    Unlink { mount: u32, path: RelPath },
    Rename { mount: u32, from: RelPath, to: RelPath },
    Utime { mount: u32, path: RelPath, atime_ns: u64, mtime_ns: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    File = 0,
    Dir = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    pub kind: FileKind,
    pub size: u64,
    pub mtime_ns: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FileAnswer {
    Done,
    Stat(FileStat),
    List(Vec<(String, FileStat)>),
    Data(Vec<u8>),
    /// The operation failed with this errno; `detail` says why when the errno alone would not.
    Failed { errno: i32, detail: String },
}

fn write_path(w: &mut Writer, path: &RelPath) {
    w.strs(path);
}

fn write_stat(w: &mut Writer, stat: &FileStat) {
    w.u8(stat.kind as u8);
    w.u64(stat.size);
    w.u64(stat.mtime_ns);
}

fn read_stat(r: &mut Reader<'_>) -> WireResult<FileStat> {
    let kind = match r.u8()? {
        0 => FileKind::File,
        1 => FileKind::Dir,
        other => return Err(WireError::BadTag(other)),
    };
    Ok(FileStat { kind, size: r.u64()?, mtime_ns: r.u64()? })
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

    pub fn write(&self, w: &mut Writer) {
        match self {
            FileOp::Stat { mount, path } => {
                w.u8(0);
                w.u32(*mount);
                write_path(w, path);
            }
            FileOp::List { mount, path } => {
                w.u8(1);
                w.u32(*mount);
                write_path(w, path);
            }
            FileOp::Read { mount, path, offset, size } => {
                w.u8(2);
                w.u32(*mount);
                write_path(w, path);
                w.u64(*offset);
                w.u64(*size);
            }
            FileOp::Write { mount, path, offset, data, create } => {
                w.u8(3);
                w.u32(*mount);
                write_path(w, path);
                w.u64(*offset);
                w.bytes(data);
                w.bool(*create);
            }
            FileOp::Truncate { mount, path, size } => {
                w.u8(4);
                w.u32(*mount);
                write_path(w, path);
                w.u64(*size);
            }
            FileOp::Mkdir { mount, path } => {
                w.u8(5);
                w.u32(*mount);
                write_path(w, path);
            }
            FileOp::Rmdir { mount, path } => {
                w.u8(6);
                w.u32(*mount);
                write_path(w, path);
            }
            FileOp::Unlink { mount, path } => {
                w.u8(7);
                w.u32(*mount);
                write_path(w, path);
            }
            FileOp::Rename { mount, from, to } => {
                w.u8(8);
                w.u32(*mount);
                write_path(w, from);
                write_path(w, to);
            }
            FileOp::Utime { mount, path, atime_ns, mtime_ns } => {
                w.u8(9);
                w.u32(*mount);
                write_path(w, path);
                w.u64(*atime_ns);
                w.u64(*mtime_ns);
            }
        }
    }

    pub fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let tag = r.u8()?;
        let mount = r.u32()?;
        let path = r.strings()?;
        Ok(match tag {
            0 => FileOp::Stat { mount, path },
            1 => FileOp::List { mount, path },
            2 => FileOp::Read { mount, path, offset: r.u64()?, size: r.u64()? },
            3 => {
                let offset = r.u64()?;
                let data = r.bytes()?;
                if data.len() > MAX_TRANSFER {
                    return Err(WireError::TooLarge(data.len()));
                }
                FileOp::Write { mount, path, offset, data: data.to_vec(), create: r.bool()? }
            }
            4 => FileOp::Truncate { mount, path, size: r.u64()? },
            5 => FileOp::Mkdir { mount, path },
            6 => FileOp::Rmdir { mount, path },
            7 => FileOp::Unlink { mount, path },
            8 => FileOp::Rename { mount, from: path, to: r.strings()? },
            9 => FileOp::Utime { mount, path, atime_ns: r.u64()?, mtime_ns: r.u64()? },
            other => return Err(WireError::BadTag(other)),
        })
    }
}

impl FileAnswer {
    pub fn write(&self, w: &mut Writer) {
        match self {
            FileAnswer::Done => w.u8(0),
            FileAnswer::Stat(stat) => {
                w.u8(1);
                write_stat(w, stat);
            }
            FileAnswer::List(entries) => {
                w.u8(2);
                w.len(entries.len());
                for (name, stat) in entries {
                    w.str(name);
                    write_stat(w, stat);
                }
            }
            FileAnswer::Data(data) => {
                w.u8(3);
                w.bytes(data);
            }
            FileAnswer::Failed { errno, detail } => {
                w.u8(4);
                w.u32(*errno as u32);
                w.str(detail);
            }
        }
    }

    pub fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        Ok(match r.u8()? {
            0 => FileAnswer::Done,
            1 => FileAnswer::Stat(read_stat(r)?),
            2 => {
                let n = r.count(18)?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    entries.push((r.string()?, read_stat(r)?));
                }
                FileAnswer::List(entries)
            }
            3 => FileAnswer::Data(r.bytes()?.to_vec()),
            4 => FileAnswer::Failed { errno: r.u32()? as i32, detail: r.string()? },
            other => return Err(WireError::BadTag(other)),
        })
    }
}

/// What the host's `interp.files` asks of the session's filesystem, between runs.
#[derive(Clone, Debug, PartialEq)]
pub enum FilesCommand {
    /// Write `data` (str or bytes) to the file at sandbox path `path`, making its directories.
    Write { path: String, data: Value },
    Read { path: String },
    /// Every file in the session's memory tree and overlays, with its size.
    List,
    /// The files the last run created or changed.
    Written,
}

impl FilesCommand {
    pub fn write(&self, w: &mut Writer) {
        match self {
            FilesCommand::Write { path, data } => {
                w.u8(0);
                w.str(path);
                data.write(w);
            }
            FilesCommand::Read { path } => {
                w.u8(1);
                w.str(path);
            }
            FilesCommand::List => w.u8(2),
            FilesCommand::Written => w.u8(3),
        }
    }

    pub fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        Ok(match r.u8()? {
            0 => FilesCommand::Write { path: r.string()?, data: Value::read(r)? },
            1 => FilesCommand::Read { path: r.string()? },
            2 => FilesCommand::List,
            3 => FilesCommand::Written,
            other => return Err(WireError::BadTag(other)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip_op(op: FileOp) {
        let mut w = Writer::default();
        op.write(&mut w);
        let frame = w.finish().into_vec();
        let mut r = Reader::new(&frame);
        assert_eq!(FileOp::read(&mut r).unwrap(), op);
        r.finish().unwrap();
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
        assert!(FileOp::read(&mut Reader::new(&frame)).is_err());
        assert!(FileAnswer::read(&mut Reader::new(&frame)).is_err());
    }
}
