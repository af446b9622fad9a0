//! What a worker thread keeps from one session to the next.
//!
//! RustPython builds its built-in types once per thread and never frees them (~0.6 MB, and more as the
//! thread's string pool grows), and caches a few classes per thread the first time a VM asks for them
//! (`ExceptionGroup`, `io.UnsupportedOperation`, `struct.error`, `_csv.Error`). A new thread per session
//! leaked all that every time (2.3 MB per session). Worker threads are therefore reused, which is safe only
//! if nothing of one session stays reachable from what the thread keeps for the next:
//! - every native type (built-in types and those of the allowed native modules, all created before the first
//!   session's code runs) gets its attributes back as they were then after each session (the standard
//!   library itself sets some at import, so they cannot be immutable); a session that makes a new native
//!   type exist does not hand its thread on; the cached classes are made immutable;
//! - RustPython's `_codecs` keeps, per thread, the functions it delegates the charmap codecs to, looked up in
//!   `sys.modules`: they are fixed to native refusals before any sandbox code runs;
//! - RustPython's `_json` keeps, per thread, the `_json` module it last found in `sys.modules` and two of its
//!   attributes: the last thing each VM does is to refill it with a `_json` no sandbox code has seen
//!   (`refill_json_cache`);
//! - a few classes of each VM outlive its finalisation (some of its start-up classes: codecs, import
//!   machinery), with their dicts emptied by teardown; they are unlinked from every `__subclasses__()`
//!   list, the only way a later session could come across them.
//! All of it is set up once per thread (`protect_thread_state`) and checked after each session
//! (`clean_up_after_session`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use rustpython_vm::builtins::{PyStrInterned, PyType, PyTypeRef};
use rustpython_vm::PyObjectRef;
use rustpython_vm::types::PyTypeFlags;
use rustpython_vm::{AsObject, PyResult, VirtualMachine};

use crate::sandbox::all_types;

/// Where the classes RustPython caches per thread are found.
const CACHED_CLASSES: &[(&str, &str)] = &[
    ("builtins", "ExceptionGroup"),
    ("_io", "UnsupportedOperation"),
    ("_struct", "error"),
    ("_csv", "Error"),
    ("binascii", "Error"),
    ("binascii", "Incomplete"),
    ("zlib", "error"),
    ("_pickle", "PickleError"),
    ("_pickle", "PicklingError"),
    ("_pickle", "UnpicklingError"),
    ("_lzma", "LZMAError"),
];

/// The functions RustPython's `_codecs` delegates to `_pycodecs`, caching the first it finds for the thread.
const CODECS_DELEGATED: &[&str] = &["charmap_encode", "charmap_decode", "charmap_build", "readbuffer_encode"];

thread_local! {
    /// This thread's cached classes, made immutable; they outlive every session on the thread.
    static KEPT: RefCell<Vec<PyTypeRef>> = const { RefCell::new(Vec::new()) };
    /// Whether this thread's one-time protections are in place.
    static PROTECTED: Cell<bool> = const { Cell::new(false) };
    /// This thread's native types, with their attributes as they were before any sandbox code ran.
    static PRISTINE: RefCell<Vec<(PyTypeRef, Attributes)>> = const { RefCell::new(Vec::new()) };
}

/// Before any sandbox code of a session runs. The first time on a thread: import every allowed native module
/// so that all native types exist, guard their slots (`native_recursion`), and set up what the thread keeps
/// across sessions. A thread whose native types change never hosts another session (see
/// `clean_up_after_session`), so this stays true for all its sessions.
pub fn protect_thread_state(vm: &VirtualMachine, native_modules: &[&'static str]) -> PyResult<()> {
    if !PROTECTED.with(Cell::get) {
        for module in native_modules {
            // A module that cannot be imported here cannot be by sandbox code either.
            let _ = vm.import(*module, 0);
        }
        crate::native_recursion::guard_native_iterators(vm)?;
        fix_codecs_delegates(vm)?;
        protect_cached_classes(vm)?;
        let snapshot = native_types().into_iter().map(|class| {
            let attributes = attributes_of(&class);
            (class, attributes)
        });
        PRISTINE.with(|pristine| *pristine.borrow_mut() = snapshot.collect());
        PROTECTED.with(|protected| protected.set(true));
    }
    Ok(())
}

/// A type's attributes by the address of their interned name.
type Attributes = HashMap<usize, (&'static PyStrInterned, PyObjectRef)>;

fn attributes_of(class: &PyType) -> Attributes {
    let ctx = rustpython_vm::Context::genesis();
    class.attributes.attributes(ctx).into_iter().map(|(name, value)| (name as *const _ as usize, (name, value))).collect()
}

fn immutable() -> PyTypeFlags {
    PyTypeFlags::from_slice(&[PyTypeFlags::IMMUTABLETYPE])
}

fn native_types() -> Vec<PyTypeRef> {
    let root = rustpython_vm::Context::genesis().types.object_type.to_owned();
    all_types(&root).into_iter().filter(|class| !class.slots.flags.has_feature(PyTypeFlags::HEAPTYPE)).collect()
}

/// RustPython's `_json` keeps, per thread, the `_json` module `json.dumps` last found in `sys.modules` (which
/// sandbox code controls) and two of its attributes. Whatever a session left there would be dropped inside the
/// next session's VM the first time it encoded JSON, running any finalizer or weakref callback it carries in
/// that VM, with that session's frames up the stack. So the very last thing a session's VM does, once its
/// modules are finalised and its garbage collected, is to give the cache a `_json` made from its definition,
/// found through a `sys.modules` of its own. Nothing of the session runs after that: finalizers need an
/// entered VM, and this is the VM's last entry. A finalizer the replaced entry runs meanwhile cannot fill the
/// cache again (the cache is borrowed then: RustPython panics, and the thread is retired).
///
/// The import looks `sys.modules` and `builtins.__import__` up through `ModuleType` and `object`, whose
/// attributes the session could have changed (a data descriptor would answer instead of the dicts): the
/// thread is not reused then. False whenever the refill did not happen.
pub fn refill_json_cache(vm: &VirtualMachine) -> bool {
    let types = &vm.ctx.types;
    if !is_pristine(types.module_type) || !is_pristine(types.object_type) {
        return false;
    }
    let Some(def) = vm.state.module_defs.get("_json").copied() else { return true };
    let refill = || -> PyResult<()> {
        let module = def.create_module(vm)?;
        def.exec_module(vm, &module)?;
        let modules = vm.ctx.new_dict();
        modules.set_item("_json", module.clone().into(), vm)?;
        vm.sys_module.dict().set_item("modules", modules.into(), vm)?;
        vm.builtins.dict().set_item("__import__", vm.import_func.clone(), vm)?;
        let dict = module.dict();
        let make_encoder = dict.get_item("make_encoder", vm)?;
        let escape = dict.get_item("encode_basestring_ascii", vm)?;
        let none = || vm.ctx.none();
        let text = |s: &str| -> PyObjectRef { vm.ctx.new_str(s).into() };
        let flag = |b: bool| -> PyObjectRef { vm.ctx.new_bool(b).into() };
        // markers, default, encoder, indent, key separator, item separator, sort_keys, skipkeys, allow_nan
        let args = vec![none(), none(), escape, none(), text(":"), text(","), flag(false), flag(false), flag(true)];
        let encoded = make_encoder.call(rustpython_vm::function::FuncArgs::from(args), vm);
        // The cache holds the module only for its identity. Emptied, it holds nothing (its functions point
        // back at it: a cycle nothing would collect once this VM is gone); nor do the finalised VM's dicts.
        dict.clear();
        vm.sys_module.dict().del_item("modules", vm)?;
        vm.builtins.dict().del_item("__import__", vm)?;
        encoded.map(drop)
    };
    refill().is_ok()
}

/// Whether `class` has exactly the attributes it had before any sandbox code ran on this thread.
fn is_pristine(class: &rustpython_vm::Py<PyType>) -> bool {
    PRISTINE.with(|pristine| {
        let pristine = pristine.borrow();
        let Some((_, attributes)) = pristine.iter().find(|(known, _)| known.as_object().is(class.as_object())) else {
            return false;
        };
        let current = attributes_of(class);
        current.len() == attributes.len()
            && attributes.iter().all(|(key, (_, value))| current.get(key).is_some_and(|(_, now)| now.is(value)))
    })
}

/// After a session's VM is gone: take every class it left behind out of every `__subclasses__()` list, and
/// give every native type its attributes back as they were before any sandbox code ran. False when the
/// session made new native types exist (they could not be restored): the thread must not host another
/// session then.
pub fn clean_up_after_session() -> bool {
    let root = rustpython_vm::Context::genesis().types.object_type.to_owned();
    let mut native = Vec::new();
    for class in all_types(&root) {
        class.subclasses.write().retain(|weak| {
            weak.upgrade().and_then(|sub| sub.downcast::<PyType>().ok()).is_some_and(|sub| {
                !sub.slots.flags.has_feature(PyTypeFlags::HEAPTYPE) || is_kept(&sub)
            })
        });
        if !class.slots.flags.has_feature(PyTypeFlags::HEAPTYPE) {
            native.push(class);
        }
    }
    PRISTINE.with(|pristine| {
        let pristine = pristine.borrow();
        if native.len() != pristine.len() {
            return false;
        }
        for (class, attributes) in pristine.iter() {
            restore_attributes(class, attributes);
        }
        true
    })
}

fn restore_attributes(class: &PyType, attributes: &Attributes) {
    let current = attributes_of(class);
    let mut changed = false;
    for (key, (name, _)) in &current {
        if !attributes.contains_key(key) {
            class.attributes.remove(name);
            changed = true;
        }
    }
    for (key, (name, value)) in attributes {
        if !current.get(key).is_some_and(|(_, now)| now.is(value)) {
            class.attributes.insert(name, value.clone());
            changed = true;
        }
    }
    if changed {
        class.modified();
    }
}

/// Fill `_codecs`' per-thread delegate caches with native refusals (the charmap codecs need `_pycodecs`,
/// which the sandbox does not have), so that no session's function can ever be cached there.
fn fix_codecs_delegates(vm: &VirtualMachine) -> PyResult<()> {
    let refusal = vm.new_function("charmap_codec", |_args: rustpython_vm::function::FuncArgs, vm: &VirtualMachine| -> rustpython_vm::PyResult {
        Err(vm.new_lookup_error(
            "the charmap codecs (cp437, cp1252, mac_roman, ...) are not available in the sandbox; use utf-8, \
             latin-1 or ascii",
        ))
    });
    let stand_in = vm.new_module("_pycodecs", vm.ctx.new_dict(), None);
    for name in CODECS_DELEGATED {
        stand_in.as_object().set_attr(*name, refusal.clone(), vm)?;
    }
    let modules = vm.sys_module.get_attr("modules", vm)?;
    modules.set_item("_pycodecs", stand_in.into(), vm)?;
    let codecs = vm.import("_codecs", 0)?;
    let empty_bytes: rustpython_vm::PyObjectRef = vm.ctx.new_bytes(Vec::new()).into();
    let empty_str: rustpython_vm::PyObjectRef = vm.ctx.new_str("").into();
    for name in CODECS_DELEGATED {
        let argument = if name.ends_with("_decode") || name.starts_with("readbuffer") { &empty_bytes } else { &empty_str };
        // Fails (the refusal), having cached the refusal for this thread: that is the point.
        let _ = codecs.get_attr(*name, vm)?.call((argument.clone(),), vm);
    }
    modules.del_item("_pycodecs", vm)
}

/// Make the classes RustPython caches on this thread immutable, before any sandbox code runs on it.
fn protect_cached_classes(vm: &VirtualMachine) -> PyResult<()> {
    for (module, name) in CACHED_CLASSES {
        let class = vm.import(*module, 0)?.get_attr(*name, vm)?;
        let class = class
            .downcast::<PyType>()
            .map_err(|_| vm.new_system_error(format!("{module}.{name} is expected to be a class")))?;
        class.slots.flags.replace_masked(immutable(), immutable());
        KEPT.with(|kept| {
            let mut kept = kept.borrow_mut();
            if !kept.iter().any(|known| known.is(class.as_object())) {
                kept.push(class);
            }
        });
    }
    Ok(())
}

/// A class that outlives every session on this thread (its dict must stay as it is).
pub fn is_kept(class: &PyType) -> bool {
    KEPT.with(|kept| kept.borrow().iter().any(|known| std::ptr::eq(&***known, class)))
}
