//! The sandbox's own Python modules are the files of `src/sandbox/machinery/` (its machinery, `_sandbox_*`) and
//! `src/sandbox/library/stand_ins/` (modules in place of the standard library's), each named after the module
//! it provides (`asyncio.unix_events.py` is `asyncio.unix_events`); a line `# stand-in also for: NAME` in one
//! makes it module NAME too. This writes the list `sandbox::prepare` compiles, so adding a module is adding its
//! file.

use std::fmt::Write as _;
use std::path::Path;

const FOLDERS: &[&str] = &["src/sandbox/machinery", "src/sandbox/library/stand_ins"];
const ALSO: &str = "# stand-in also for: ";

fn main() {
    // Read when the script runs, not when it was compiled: one target folder serves several clones, and a
    // script compiled in one would read another's stand-ins.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let mut files = Vec::new();
    for folder in FOLDERS {
        println!("cargo:rerun-if-changed={folder}");
        let entries = std::fs::read_dir(Path::new(&root).join(folder))
            .unwrap_or_else(|e| panic!("{folder} is not readable: {e}"));
        files.extend(
            entries
                .map(|entry| entry.expect("a readable entry").path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "py")),
        );
    }
    assert!(!files.is_empty(), "no modules in {FOLDERS:?}");
    files.sort();
    let mut list = String::from("[\n");
    let mut names = std::collections::HashSet::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let module = path.file_stem().and_then(|stem| stem.to_str()).expect("a UTF-8 file name");
        let source = std::fs::read_to_string(path).expect("a readable stand-in");
        let aliases = source
            .lines()
            .filter_map(|line| line.strip_prefix(ALSO))
            .map(|rest| rest.split_whitespace().next().unwrap_or(""));
        for name in std::iter::once(module).chain(aliases) {
            assert!(names.insert(name.to_owned()), "two files provide module {name}");
            assert!(
                name.split('.')
                    .all(|part| !part.is_empty() && part.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())),
                "{name:?} is not a module name"
            );
            writeln!(list, "    stand_in!({name:?}, {:?}, \"<sandbox {name}>\"),", path.display().to_string()).unwrap();
        }
    }
    list.push(']');
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("stand_ins.rs");
    std::fs::write(out, list).expect("OUT_DIR is writable");
}
