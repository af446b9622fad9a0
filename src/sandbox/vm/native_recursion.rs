//! A depth guard on native iteration. RustPython's built-in iterators (`map`, `filter`, `zip`, `enumerate`,
//! the `itertools` family, ...) pull from the iterator they wrap in Rust, with no depth check of their own,
//! so `x = map(f, x)` repeated a million times and then `next(x)` would recurse until the native stack
//! overflows. CPython guards these with `Py_EnterRecursiveCall`; here every native type's `__next__` slot is
//! wrapped in the VM's native-stack check, so too deep a chain is a RecursionError.
//!
//! `repr` is also held to the recursion limit, as in CPython (see `within_recursion_limit`).
//!
//! Calls are guarded the same way (`call` and `vectorcall` slots of native callables): a chain like
//! `iter(x.__next__, None)` nested a million deep recurses through method wrappers, not `__next__` slots.
//! There the callable is known, so its argument errors are put in CPython's words too (`vm::wording`).
//!
//! Slots are plain function pointers, so each distinct original gets a trampoline of its own: one
//! monomorphised `guarded::<I>` per table index, which looks its original up by index.

use std::sync::{Mutex, OnceLock};

use std::cell::Cell;

use rustpython_vm::builtins::{PyStr, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::types::PyTypeFlags;
use rustpython_vm::{PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

type IterNextFunc = fn(&PyObject, &VirtualMachine) -> PyResult<PyIterReturn>;
type CallFunc = fn(&PyObject, FuncArgs, &VirtualMachine) -> PyResult;
type StringifyFunc = fn(&PyObject, &VirtualMachine) -> PyResult<PyRef<PyStr>>;
type VectorCallFunc = fn(&PyObject, Vec<PyObjectRef>, usize, Option<&[PyObjectRef]>, &VirtualMachine) -> PyResult;

/// More than the number of native implementations of any one slot in the VM and the standard library modules
/// the sandbox offers (`repr` has the most: about 85 after start-up, more as modules are imported).
const TRAMPOLINES: usize = 256;

/// `[guarded::<0>, guarded::<1>, ...]`, one per trampoline.
macro_rules! trampoline_table {
    ($guarded:ident, $func:ty) => {
        trampoline_table!(@ $guarded, $func,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127
            128 129 130 131 132 133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 148 149 150 151 152 153 154 155 156 157 158 159
            160 161 162 163 164 165 166 167 168 169 170 171 172 173 174 175 176 177 178 179 180 181 182 183 184 185 186 187 188 189 190 191
            192 193 194 195 196 197 198 199 200 201 202 203 204 205 206 207 208 209 210 211 212 213 214 215 216 217 218 219 220 221 222 223
            224 225 226 227 228 229 230 231 232 233 234 235 236 237 238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255)
    };
    (@ $guarded:ident, $func:ty, $($i:literal)*) => { [$($guarded::<$i> as $func),*] };
}

/// One family of trampolines for a slot signature: `guard(original)` gives the trampoline that runs
/// `original` inside the VM's native-stack check. Trampolines are shared by all VMs of the process.
macro_rules! slot_guard {
    ($family:ident, $func:ty, ($($arg:ident: $argty:ty),*) -> $ret:ty, $check:ident, $where:literal) => {
        mod $family {
            use super::*;

            static ORIGINALS: [OnceLock<$func>; TRAMPOLINES] = [const { OnceLock::new() }; TRAMPOLINES];
            static TAKEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());

            fn guarded<const I: usize>(zelf: &PyObject, $($arg: $argty,)* vm: &VirtualMachine) -> $ret {
                match ORIGINALS[I].get() {
                    Some(original) => $check(vm, zelf, $where, || original(zelf, $($arg,)* vm)),
                    None => Err(vm.new_system_error("guarded slot without its original")),
                }
            }

            const GUARDS: [$func; TRAMPOLINES] = trampoline_table!(guarded, $func);

            /// The trampoline for `original` (itself if it already is one); None when all are taken.
            pub fn guard(original: $func) -> Option<$func> {
                let address = original as usize;
                if GUARDS.iter().any(|guard| *guard as usize == address) {
                    return Some(original);
                }
                let mut taken = TAKEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let index = match taken.iter().position(|&known| known == address) {
                    Some(index) => index,
                    None if taken.len() < TRAMPOLINES => {
                        let _ = ORIGINALS[taken.len()].set(original);
                        taken.push(address);
                        taken.len() - 1
                    }
                    None => return None,
                };
                Some(GUARDS[index])
            }
        }
    };
}

/// Native recursion bounded by the stack it has left (CPython's `Py_EnterRecursiveCall`).
fn within_native_stack<R>(
    vm: &VirtualMachine,
    _zelf: &PyObject,
    what: &str,
    f: impl FnOnce() -> PyResult<R>,
) -> PyResult<R> {
    vm.with_recursion(what, f)
}

/// A call of a native callable, bounded like any native recursion; its argument errors in CPython's words.
fn calling<R>(vm: &VirtualMachine, callable: &PyObject, what: &str, f: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    vm.with_recursion(what, f).map_err(|error| crate::sandbox::vm::wording::call_error(vm, callable, error))
}

thread_local! {
    static REPR_DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Native recursion bounded by the recursion limit as well, as CPython bounds `repr`: the repr of a deeply
/// nested value grows with the square of its depth (each level copies the text of the levels inside), so a
/// million-deep list would take minutes before the stack ran out.
fn within_recursion_limit<R>(
    vm: &VirtualMachine,
    _zelf: &PyObject,
    what: &str,
    f: impl FnOnce() -> PyResult<R>,
) -> PyResult<R> {
    let depth = REPR_DEPTH.with(Cell::get);
    if depth >= vm.recursion_limit.get() {
        return Err(vm.new_recursion_error(format!("maximum recursion depth exceeded {what}")));
    }
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            REPR_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        }
    }
    REPR_DEPTH.with(|d| d.set(depth + 1));
    let _leave = Leave;
    vm.with_recursion(what, f)
}

slot_guard!(iternext, IterNextFunc, () -> PyResult<PyIterReturn>, within_native_stack, "while iterating (a chain of iterators nested too deep)");
slot_guard!(call, CallFunc, (args: FuncArgs) -> PyResult, calling, "while calling (a chain of callables nested too deep)");
slot_guard!(vectorcall, VectorCallFunc, (args: Vec<PyObjectRef>, nargs: usize, kwnames: Option<&[PyObjectRef]>) -> PyResult, calling, "while calling (a chain of callables nested too deep)");
slot_guard!(repr, StringifyFunc, () -> PyResult<PyRef<PyStr>>, within_recursion_limit, "while getting the repr of an object (nested too deep)");

/// Guard the `__next__`, call, vectorcall and repr slots of every native type that exists on this thread
/// (the caller imports the modules whose types it wants guarded first). The zygote does it once, before any
/// session is forked; types already guarded are left as they are.
/// Python subclasses created later inherit the guarded slot.
pub fn guard_native_iterators(vm: &VirtualMachine) -> PyResult<usize> {
    let mut guarded = 0;
    for typ in all_types(&vm.ctx.types.object_type.to_owned()) {
        if !typ.slots.flags.has_feature(PyTypeFlags::HEAPTYPE) {
            let too_many = || vm.new_system_error("too many native slot implementations to guard");
            if let Some(original) = typ.slots.iternext.load() {
                typ.slots.iternext.store(Some(iternext::guard(original).ok_or_else(too_many)?));
                guarded += 1;
            }
            if let Some(original) = typ.slots.call.load() {
                typ.slots.call.store(Some(call::guard(original).ok_or_else(too_many)?));
            }
            if let Some(original) = typ.slots.repr.load() {
                typ.slots.repr.store(Some(repr::guard(original).ok_or_else(too_many)?));
            }
            if let Some(original) = typ.slots.vectorcall.load() {
                typ.slots.vectorcall.store(Some(vectorcall::guard(original).ok_or_else(too_many)?));
            }
        }
    }
    Ok(guarded)
}

/// `root` and every type below it that is still alive, each once (types have several bases).
fn all_types(root: &PyRef<PyType>) -> Vec<PyRef<PyType>> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut pending = vec![root.clone()];
    while let Some(typ) = pending.pop() {
        if !seen.insert(&**typ as *const PyType as usize) {
            continue;
        }
        let subclasses: Vec<_> = typ.subclasses.read().iter().filter_map(|weak| weak.upgrade()).collect();
        pending.extend(subclasses.into_iter().filter_map(|sub| sub.downcast::<PyType>().ok()));
        found.push(typ);
    }
    found
}

#[cfg(test)]
mod tests {
    use crate::sandbox::prepare::with_test_vm;

    #[test]
    fn a_deep_chain_of_native_iterators_is_a_recursion_error() {
        with_test_vm(|vm| {
            assert!(super::guard_native_iterators(vm).expect("guarded") > 20);
            let code = "x = iter([1])\nfor _ in range(10**6):\n    x = map(abs, x)\ntry:\n    next(x)\n    r = 'no error'\nexcept RecursionError as e:\n    r = str(e)\n";
            let scope = vm.new_scope_with_builtins();
            let compiled =
                vm.compile(code, rustpython_vm::compiler::Mode::Exec, "<test>".to_owned()).expect("compiles");
            vm.run_code_obj(compiled, scope.clone()).expect("runs");
            let text = scope.globals.get_item("r", vm).expect("r is set").str(vm).expect("a str").to_string();
            assert!(text.contains("maximum recursion depth exceeded"), "{text}");
        });
    }
}
