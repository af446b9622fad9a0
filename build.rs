//! The sandbox's stand-in modules are the files of `src/sandbox/python/`, each named after the module it
//! provides (`asyncio.unix_events.py` is `asyncio.unix_events`); a line `# stand-in also for: NAME` in one makes
//! it module NAME too. This writes the list `sandbox::stand_ins` compiles, so adding a stand-in is adding its
//! file.

use std::fmt::Write as _;
use std::path::Path;

const FOLDER: &str = "src/sandbox/python";
const ALSO: &str = "# stand-in also for: ";

fn main() {
    println!("cargo:rerun-if-changed={FOLDER}");
    // Read when the script runs, not when it was compiled: one target folder serves several clones, and a
    // script compiled in one would read another's stand-ins.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let folder = Path::new(&root).join(FOLDER);
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .expect("src/sandbox/python is readable")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    files.sort();
    let mut list = String::from("[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let module = path.file_stem().and_then(|stem| stem.to_str()).expect("a UTF-8 file name");
        let source = std::fs::read_to_string(path).expect("a readable stand-in");
        let aliases = source.lines().filter_map(|line| line.strip_prefix(ALSO)).map(|rest| rest.split_whitespace().next().unwrap_or(""));
        for name in std::iter::once(module).chain(aliases) {
            assert!(name.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())), "{name:?} is not a module name");
            writeln!(list, "    stand_in!({name:?}, {:?}, \"<sandbox {name}>\"),", path.display().to_string()).unwrap();
        }
    }
    list.push(']');
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("stand_ins.rs");
    std::fs::write(out, list).expect("OUT_DIR is writable");
}
