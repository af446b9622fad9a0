//! Host files a zygote reads before it is confined and keeps in Rust memory, shared by every session it forks
//! (copy-on-write, and untouched until read: held as Python objects in the zygote's heap, 600 small files would
//! add to the start of every new session). The time-zone data (`tzdata`) and a package set's files (`bundle`)
//! are two such trees; sandbox code reads them through `reader`'s functions, never the host's filesystem.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, VirtualMachine};

/// `stat` mode bits of a file and of a folder, as the sandbox's importer tests them.
const S_IFREG: u32 = 0o100000;
const S_IFDIR: u32 = 0o040000;

/// Files by their path in the sandbox, and the folders above them; bounded when read.
pub struct Tree {
    files: HashMap<String, Vec<u8>>,
    folders: HashSet<String>,
    bytes: u64,
    max_files: usize,
    max_bytes: u64,
}

impl Tree {
    pub fn new(max_files: usize, max_bytes: u64) -> Self {
        Tree { files: HashMap::new(), folders: HashSet::new(), bytes: 0, max_files, max_bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Read `host` (a file, or a folder whole, but for the entries `skipped` names) as `sandbox`. A link is
    /// followed only to a file inside `host` itself: one that leaves it would show the sandbox a host file nobody
    /// chose (a package folder with `leak -> /etc/shadow`), and one to a folder could lead round in a circle.
    pub fn add(&mut self, sandbox: &str, host: &Path, skipped: fn(&str) -> bool) -> Result<(), String> {
        let root = std::fs::canonicalize(host).map_err(|e| format!("{host:?}: {e}"))?;
        self.add_within(sandbox, &root, &root, skipped)
    }

    /// `add` of `host`, resolved, which is `root` or inside it.
    fn add_within(&mut self, sandbox: &str, host: &Path, root: &Path, skipped: fn(&str) -> bool) -> Result<(), String> {
        let kind = std::fs::metadata(host).map_err(|e| format!("{host:?}: {e}"))?;
        if kind.is_dir() {
            self.folders.insert(sandbox.to_owned());
            for entry in std::fs::read_dir(host).map_err(|e| format!("{host:?}: {e}"))?.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str().filter(|name| !skipped(name)) else { continue };
                let Ok(file_type) = entry.file_type() else { continue };
                // Resolved; a link out of `root`, to a folder, or to nothing is left out.
                let Ok(inner_host) = std::fs::canonicalize(entry.path()) else { continue };
                if file_type.is_symlink() && (!inner_host.starts_with(root) || !inner_host.is_file()) {
                    continue;
                }
                let inner = if sandbox.is_empty() { name.to_owned() } else { format!("{sandbox}/{name}") };
                self.add_within(&inner, &inner_host, root, skipped)?;
            }
        } else if kind.is_file() {
            self.bytes += kind.len();
            if self.files.len() >= self.max_files || self.bytes > self.max_bytes {
                return Err(format!("more than {} files or {} bytes to read", self.max_files, self.max_bytes));
            }
            let data = std::fs::read(host).map_err(|e| format!("{host:?}: {e}"))?;
            self.files.insert(sandbox.to_owned(), data);
        }
        Ok(())
    }

    fn kind(&self, path: &str) -> u32 {
        if self.files.contains_key(path) {
            S_IFREG
        } else if self.folders.contains(path) {
            S_IFDIR
        } else {
            0
        }
    }
}

/// The functions sandbox code reads `tree` with: `read(path)` (the bytes, or None), `kind(path)` (the `stat`
/// type bits, or 0) and `keys()` (every file's path).
pub fn reader(vm: &VirtualMachine, tree: &'static Tree) -> [PyObjectRef; 3] {
    let read = vm.new_function("read", move |path: PyStrRef, vm: &VirtualMachine| -> PyObjectRef {
        match path.to_str().and_then(|path| tree.files.get(path)) {
            Some(data) => vm.ctx.new_bytes(data.clone()).into(),
            None => vm.ctx.none(),
        }
    });
    let kind =
        vm.new_function("kind", move |path: PyStrRef| -> u32 { path.to_str().map_or(0, |path| tree.kind(path)) });
    let keys = vm.new_function("keys", move |vm: &VirtualMachine| -> PyObjectRef {
        vm.ctx.new_list(tree.files.keys().map(|name| vm.ctx.new_str(name.as_str()).into()).collect()).into()
    });
    [read.into(), kind.into(), keys.into()]
}
