//! `re.search(pattern, string)` and the other module functions without `re._compile` in Python: through it, a
//! model's per-line loop (`for line in lines: re.search(r'user=(\w+)', line)`) spends as much in `_compile`'s
//! type checks and cache lookups as in the search. Here a `str` pattern and an `int` flag find their compiled
//! pattern in a table of our own (filled from `re._compile`, so compiling, its errors and its cache are
//! still `re`'s), and the call goes straight to the pattern's method. Any other shape of call (a compiled
//! pattern, bytes, `count` given by position, which 3.13+ warns about) is `re`'s own function's.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use rustpython_vm::builtins::PyStr;
use rustpython_vm::function::{FuncArgs, KwArgs};
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

use super::arguments::int;

/// As many patterns as `re` keeps (`re._MAXCACHE`); the oldest goes first.
const KEPT: usize = 512;
/// `re.DEBUG`.
const DEBUG: isize = 128;

/// Compiled patterns by flags, then by source (two levels, so a lookup borrows the source: no allocation).
/// Hashed with foldhash: SipHash of the source is a visible share of a per-line `re.search` (at most `KEPT`
/// entries, so colliding sources cost little).
#[derive(Default)]
struct Patterns {
    by_flags: HashMap<isize, HashMap<Vec<u8>, PyObjectRef, Hasher>, Hasher>,
    order: VecDeque<(isize, Vec<u8>)>,
}

type Hasher = foldhash::fast::RandomState;

thread_local! {
    static PATTERNS: RefCell<Patterns> = RefCell::new(Patterns::default());
}

/// A module function: which keyword arguments it takes besides `flags`, and how many positional ones its
/// pattern method takes (`string`, or `repl, string`).
#[derive(Clone, Copy)]
struct Shape {
    name: &'static str,
    positional: usize,
    keywords: &'static [&'static str],
}

const SHAPES: [Shape; 8] = [
    Shape { name: "search", positional: 1, keywords: &[] },
    Shape { name: "match", positional: 1, keywords: &[] },
    Shape { name: "fullmatch", positional: 1, keywords: &[] },
    Shape { name: "findall", positional: 1, keywords: &[] },
    Shape { name: "finditer", positional: 1, keywords: &[] },
    Shape { name: "split", positional: 1, keywords: &["maxsplit"] },
    Shape { name: "sub", positional: 2, keywords: &["count"] },
    Shape { name: "subn", positional: 2, keywords: &["count"] },
];

/// A `Pattern` method of `super`, as Rust calls it: the module function skips both the attribute lookup on the
/// pattern and the VM's call of a method object (a visible share of a per-line `re.search`).
pub type PatternMethod = std::rc::Rc<dyn Fn(FuncArgs, &VirtualMachine) -> PyResult>;

pub fn install(methods: &HashMap<&'static str, PatternMethod>, vm: &VirtualMachine) -> PyResult<()> {
    let re = vm.import("re", 0)?;
    // `re.compile` (which is `re._compile`), not `_compile` itself: called from here, the module function has no
    // frame of its own, and `re.compile`'s stands in for it, so a warning the parser raises with a `stacklevel`
    // counted from `re.findall` (a possible set operation) still names the line that called it.
    let compile = re.get_attr("compile", vm)?;
    for shape in SHAPES {
        let original = re.get_attr(shape.name, vm)?;
        let compile = compile.clone();
        let method = methods[shape.name].clone();
        let function = vm.new_function(shape.name, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            match split_call(&shape, &args, vm) {
                Some((source, flags, mut method_args)) => {
                    let pattern = pattern_for(source, flags, &args.args[0], &compile, vm)?;
                    method_args.args.insert(0, pattern);
                    method(method_args, vm)
                }
                None => original.call(args, vm),
            }
        });
        re.set_attr(shape.name, function, vm)?;
    }
    // `re.purge()` empties `re`'s caches; ours with them.
    let purge = re.get_attr("purge", vm)?;
    let function = vm.new_function("purge", move |vm: &VirtualMachine| -> PyResult {
        // Taken out, then dropped with no borrow held: dropping a pattern can run Python code (a weak
        // reference's callback) that searches again.
        drop(PATTERNS.take());
        purge.call((), vm)
    });
    re.set_attr("purge", function, vm)
}

/// The pattern's source and flags, and the arguments for its method, when the call has the plain shape.
fn split_call<'a>(shape: &Shape, args: &'a FuncArgs, vm: &VirtualMachine) -> Option<(&'a [u8], isize, FuncArgs)> {
    let (pattern, mut rest) = args.args.split_first()?;
    if !pattern.class().is(vm.ctx.types.str_type) {
        return None;
    }
    let mut flags = 0isize;
    // `search(pattern, string, flags)`: flags may come by position where nothing else follows `string`.
    if shape.keywords.is_empty() && rest.len() == shape.positional + 1 {
        flags = int(&rest[shape.positional])?;
        rest = &rest[..shape.positional];
    }
    if rest.len() != shape.positional {
        return None;
    }
    let mut kwargs = KwArgs::default();
    for (name, value) in args.kwargs.iter() {
        if name.as_bytes() == b"flags" {
            flags = int(value)?;
        } else if shape.keywords.iter().any(|k| k.as_bytes() == name.as_bytes()) {
            kwargs.insert(name.clone(), value.clone());
        } else {
            return None;
        }
    }
    // `re._compile` never caches a `re.DEBUG` pattern (it prints its program each time it is compiled).
    if flags & DEBUG != 0 {
        return None;
    }
    let source = pattern.downcast_ref::<PyStr>()?.as_wtf8().as_bytes();
    Some((source, flags, FuncArgs::new(rest.to_vec(), kwargs)))
}

fn pattern_for(
    source: &[u8],
    flags: isize,
    pattern: &PyObjectRef,
    compile: &PyObjectRef,
    vm: &VirtualMachine,
) -> PyResult {
    let found = PATTERNS.with_borrow(|patterns| patterns.by_flags.get(&flags)?.get(source).cloned());
    if let Some(found) = found {
        return Ok(found);
    }
    let compiled = compile.call((pattern.clone(), vm.ctx.new_int(flags)), vm)?;
    // The patterns that leave the table are dropped after the borrow (dropping one can run Python code).
    let removed = PATTERNS.with_borrow_mut(|patterns| {
        let mut removed = Vec::new();
        if patterns.order.len() >= KEPT {
            if let Some((old_flags, old_source)) = patterns.order.pop_front() {
                removed
                    .extend(patterns.by_flags.get_mut(&old_flags).and_then(|by_source| by_source.remove(&old_source)));
            }
        }
        patterns.order.push_back((flags, source.to_vec()));
        removed.extend(patterns.by_flags.entry(flags).or_default().insert(source.to_vec(), compiled.clone()));
        removed
    });
    drop(removed);
    Ok(compiled)
}
