//! The user's packages, imported once: a package set's zygote (started by the host for each set of the
//! `packages` option, `_zygote.py`) reads the packages' files before it is confined, keeps them in Rust memory
//! (`preread`), lets `_sandbox_importer` import from them, and imports the packages' top-level modules before it
//! forks any session, so every session of that set starts with them imported. The same files are also mounted
//! read-only in each session (`/packages`), so `open`, `os` and `importlib.metadata` see what the importer sees.
//!
//! The manifest the host writes is one line per item, tab-separated: `file <sandbox path> <host path>` (a
//! file, or a folder read whole), `import <module>`, and `cpython <import name> <host path>` for a top-level module
//! of a distribution with compiled code, which the zygote's CPython imports instead (`sandbox::cpython`).

use std::path::Path;
use std::sync::OnceLock;

use rustpython_vm::{PyResult, VirtualMachine};

use super::preread::Tree;

/// Bounds on what a set's zygote reads (sympy with mpmath: ~2,000 files, 45 MB).
const MAX_FILES: usize = 200_000;
const MAX_BYTES: u64 = 1 << 30;

pub struct Bundle {
    files: Tree,
    imports: Vec<String>,
    /// The top-level modules CPython imports (`sandbox::cpython::zygote::prepare`).
    pub cpython: Vec<(String, std::path::PathBuf)>,
}

/// The bundle a manifest names. Compiled modules and bytecode caches are left out (the sandbox loads
/// neither).
pub fn read(manifest: &Path) -> Result<Bundle, String> {
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("the package manifest {manifest:?}: {e}"))?;
    let mut bundle = Bundle { files: Tree::new(MAX_FILES, MAX_BYTES), imports: Vec::new(), cpython: Vec::new() };
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["import", module] => bundle.imports.push((*module).to_owned()),
            ["cpython", module, host] => bundle.cpython.push(((*module).to_owned(), host.into())),
            ["file", sandbox, host] => {
                bundle.files.add(sandbox, Path::new(host), compiled).map_err(|e| format!("the packages: {e}"))?
            }
            _ => return Err(format!("the package manifest has a line it cannot read: {line:?}")),
        }
    }
    Ok(bundle)
}

fn compiled(name: &str) -> bool {
    name == "__pycache__" || [".pyc", ".so", ".pyd", ".dylib"].iter().any(|end| name.ends_with(end))
}

/// The bundle, kept in the zygote's memory for every session it forks.
static FILES: OnceLock<Tree> = OnceLock::new();

/// Let the importer read from the bundle, then import the packages' modules (a module that fails to import
/// here fails again, with its own error, when the session imports it).
pub fn install(vm: &VirtualMachine, Bundle { files, imports, .. }: Bundle) -> PyResult<()> {
    if FILES.set(files).is_err() {
        return Ok(());
    }
    let [read, kind, _keys] = super::preread::reader(vm, FILES.get().expect("set above"));
    vm.import("_sandbox_importer", 0)?.get_attr("read_from", vm)?.call((read, kind), vm)?;
    for module in imports {
        let _ = vm.import(&vm.ctx.new_str(module.as_str()), 0);
    }
    Ok(())
}
