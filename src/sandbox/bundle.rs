//! The user's packages, imported once: a package set's zygote (started by the host for each set of the
//! `packages` option, `_zygote.py`) reads the packages' files before it is confined, keeps them in Rust memory,
//! lets `_sandbox_importer` import from them, and imports the packages' top-level modules before it forks any
//! session, so every session of that set starts with them imported. The same files are also mounted read-only
//! in each session (`/packages`), so `open`, `os` and `importlib.metadata` see what the importer sees.
//!
//! The manifest the host writes is one line per item, tab-separated: `file <sandbox path> <host path>` (a
//! file, or a folder read whole) and `import <module>`.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

/// Bounds on what a set's zygote reads (sympy with mpmath: ~2,000 files, 45 MB).
const MAX_FILES: usize = 200_000;
const MAX_BYTES: u64 = 1 << 30;

pub struct Bundle {
    files: HashMap<String, Vec<u8>>,
    folders: HashSet<String>,
    imports: Vec<String>,
}

/// The bundle a manifest names. Compiled modules and bytecode caches are left out (the sandbox loads
/// neither).
pub fn read(manifest: &Path) -> Result<Bundle, String> {
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("the package manifest {manifest:?}: {e}"))?;
    let mut bundle = Bundle { files: HashMap::new(), folders: HashSet::new(), imports: Vec::new() };
    let mut total = 0u64;
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["import", module] => bundle.imports.push((*module).to_owned()),
            ["file", sandbox, host] => add(&mut bundle, sandbox, Path::new(host), &mut total)?,
            _ => return Err(format!("the package manifest has a line it cannot read: {line:?}")),
        }
    }
    Ok(bundle)
}

fn add(bundle: &mut Bundle, sandbox: &str, host: &Path, total: &mut u64) -> Result<(), String> {
    let kind = std::fs::metadata(host).map_err(|e| format!("package file {host:?}: {e}"))?;
    if kind.is_dir() {
        bundle.folders.insert(sandbox.to_owned());
        let entries = std::fs::read_dir(host).map_err(|e| format!("package folder {host:?}: {e}"))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let skipped = name == "__pycache__" || [".pyc", ".so", ".pyd", ".dylib"].iter().any(|end| name.ends_with(end));
            if !skipped {
                add(bundle, &format!("{sandbox}/{name}"), &entry.path(), total)?;
            }
        }
    } else if kind.is_file() {
        *total += kind.len();
        if bundle.files.len() >= MAX_FILES || *total > MAX_BYTES {
            return Err(format!("the packages hold more than {MAX_FILES} files or {MAX_BYTES} bytes"));
        }
        let data = std::fs::read(host).map_err(|e| format!("package file {host:?}: {e}"))?;
        bundle.files.insert(sandbox.to_owned(), data);
    }
    Ok(())
}

/// The bundle, kept in the zygote's memory for every session it forks.
static BUNDLE: OnceLock<Bundle> = OnceLock::new();

/// Let the importer read from the bundle, then import the packages' modules (a module that fails to import
/// here fails again, with its own error, when the session imports it).
pub fn install(vm: &VirtualMachine, bundle: Bundle) -> PyResult<()> {
    let imports = bundle.imports.clone();
    if BUNDLE.set(bundle).is_err() {
        return Ok(());
    }
    let read = vm.new_function("read", |path: PyStrRef, vm: &VirtualMachine| -> PyObjectRef {
        match BUNDLE.get().zip(path.to_str()).and_then(|(bundle, path)| bundle.files.get(path)) {
            Some(data) => vm.ctx.new_bytes(data.clone()).into(),
            None => vm.ctx.none(),
        }
    });
    // 0o100000 for a file, 0o040000 for a folder, 0 for neither (the `stat` mode bits the importer tests).
    let kind = vm.new_function("kind", |path: PyStrRef| -> u32 {
        let (Some(bundle), Some(path)) = (BUNDLE.get(), path.to_str()) else { return 0 };
        if bundle.files.contains_key(path) {
            0o100000
        } else if bundle.folders.contains(path) {
            0o040000
        } else {
            0
        }
    });
    vm.import("_sandbox_importer", 0)?.get_attr("read_from", vm)?.call((read, kind), vm)?;
    for module in imports {
        let _ = vm.import(&vm.ctx.new_str(module.as_str()), 0);
    }
    Ok(())
}
