//! The distinct strings of a list or tuple of exact `str`s, told apart by their text in a Rust hash table,
//! for `set(words)`, `frozenset(words)`, `set.update(words)` and `Counter(words)` (the vocabulary of a
//! context, word frequencies). RustPython's set and dict look each element up under a lock, with its
//! SipHash, and that is most of the time of `set(words)` over a context's million words.
//!
//! Only where no code of the user's takes part, so the result is the one the element-by-element loop makes:
//! an exact list or tuple (no `__iter__` of the user's), of exact `str`s (hashed and compared by their text,
//! no `__hash__` or `__eq__` of the user's), into a set or count that holds nothing else (the callers check:
//! an empty set, a dict of exact strs and exact ints). Two exact strs are equal exactly when their text (WTF-8
//! bytes) is, so the first occurrence of each text is the object the loop would have kept, in the order the
//! loop would have inserted it; a later equal one changes nothing in a set and only adds to a count.
//!
//! The table is keyed by each str's own hash (SipHash, computed once and cached in the object, as the set
//! needs it anyway) and compares identity before text: a list of one long str repeated costs what it costs
//! CPython, not its length at every element.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::OnceLock;

use crate::sandbox::library::method::fast_method;
use rustpython_vm::builtins::{PyFrozenSet, PyList, PySet, PyStr, PyTuple, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine};

/// How many elements between checks for a stop (the time limit, an interrupt).
const CHECK_EVERY: usize = 4096;

/// Each distinct text of a sequence, in the order of its first occurrence.
pub struct Distinct {
    /// The first object with that text.
    pub first: PyObjectRef,
    /// How many elements have that text.
    pub count: usize,
}

/// The distinct strs of `iterable` when it is an exact list or tuple of exact strs; `None` (nothing done)
/// for anything else, which the caller handles element by element.
pub fn distinct_strs(iterable: &PyObject, vm: &VirtualMachine) -> Option<PyResult<Vec<Distinct>>> {
    if let Some(list) = iterable.downcast_ref_if_exact::<PyList>(vm) {
        // A snapshot, not the list's lock held for the walk: the stop check can run a collection, and a
        // finalizer of the user's that then wrote the list would find it locked.
        let items = list.borrow_vec().to_vec();
        return tally(&items, vm);
    }
    let tuple = iterable.downcast_ref_if_exact::<PyTuple>(vm)?;
    tally(tuple.as_slice(), vm)
}

/// How many items `iterable` holds when it is an exact list or tuple (`None` for anything else). A caller that
/// must first check what the set or dict it adds to holds does so only when that holds no more than this: the
/// check then costs no more than the call's own work, where `counts.update(line.split())` per line into a
/// growing Counter would scan the whole Counter every line.
pub fn sequence_len(iterable: &PyObject, vm: &VirtualMachine) -> Option<usize> {
    if let Some(list) = iterable.downcast_ref_if_exact::<PyList>(vm) {
        return Some(list.__len__());
    }
    Some(iterable.downcast_ref_if_exact::<PyTuple>(vm)?.len())
}

/// A str in the table: its cached hash, its object and its text; equal by identity, or else by text.
struct Key<'a> {
    hash: u64,
    object: *const PyObject,
    text: &'a [u8],
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.object == other.object || self.text == other.text
    }
}

impl Eq for Key<'_> {}

/// The str's own hash, already a keyed SipHash: passed through.
#[derive(Default)]
struct Passed(u64);

impl Hasher for Passed {
    fn write(&mut self, _: &[u8]) {
        unreachable!("a Key writes its hash as a u64");
    }
    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// One pass: a list of 1.4 million words is far larger than the caches, and each str's text is a second
/// block beside the object, so reading every element twice (once to check it, once to count it) would double
/// the cache misses (asking for the objects and texts ahead with prefetches does not win them back).
fn tally(items: &[PyObjectRef], vm: &VirtualMachine) -> Option<PyResult<Vec<Distinct>>> {
    let mut index: HashMap<Key, usize, BuildHasherDefault<Passed>> = HashMap::default();
    let mut distinct: Vec<Distinct> = Vec::new();
    for (at, item) in items.iter().enumerate() {
        if at % CHECK_EVERY == CHECK_EVERY - 1 {
            if let Err(stop) = vm.check_signals() {
                return Some(Err(stop));
            }
        }
        let text = item.downcast_ref_if_exact::<PyStr>(vm)?.as_wtf8().as_bytes();
        let hash = match item.hash(vm) {
            Ok(hash) => hash as u64,
            Err(error) => return Some(Err(error)),
        };
        match index.entry(Key { hash, object: &**item, text }) {
            Entry::Occupied(slot) => distinct[*slot.get()].count += 1,
            Entry::Vacant(slot) => {
                slot.insert(distinct.len());
                distinct.push(Distinct { first: item.clone(), count: 1 });
            }
        }
    }
    Some(Ok(distinct))
}

type InitFunc = fn(&PyObject, FuncArgs, &VirtualMachine) -> PyResult<()>;
type VectorCall = fn(&PyObject, Vec<PyObjectRef>, usize, Option<&[PyObjectRef]>, &VirtualMachine) -> PyResult;

/// The slots as RustPython made them: everything the sandbox's leave.
static OWN_INIT: OnceLock<InitFunc> = OnceLock::new();
static OWN_SET_CALL: OnceLock<VectorCall> = OnceLock::new();
static OWN_FROZENSET_CALL: OnceLock<VectorCall> = OnceLock::new();

/// `set(words)`, `frozenset(words)` and `set.update(words)` (the zygote does it once, before any session
/// exists). `set(...)` and `frozenset(...)` are their types' vector calls (what the frame calls); `set`'s init
/// slot is what a subclass without its own `__init__` calls, and `set.__init__`.
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let set_type = vm.ctx.types.set_type;
    let frozenset_type = vm.ctx.types.frozenset_type;
    let (Some(init), Some(set_call), Some(frozenset_call)) =
        (set_type.slots.init.load(), set_type.slots.vectorcall.load(), frozenset_type.slots.vectorcall.load())
    else {
        return Ok(());
    };
    OWN_INIT.get_or_init(|| init);
    OWN_SET_CALL.get_or_init(|| set_call);
    OWN_FROZENSET_CALL.get_or_init(|| frozenset_call);
    set_type.slots.init.store(Some(init_set));
    set_type.slots.vectorcall.store(Some(call_set));
    frozenset_type.slots.vectorcall.store(Some(call_frozenset));

    let name = vm.ctx.intern_str("update");
    let original = set_type.as_object().get_attr(name, vm)?;
    let method = fast_method(vm, "update", set_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        if let ([zelf, iterable], true) = (args.args.as_slice(), args.kwargs.is_empty()) {
            // An exact set (its length is its own, no `__len__` of the user's), no larger than the items.
            let small = sequence_len(iterable, vm).is_some_and(|items| zelf.length(vm).is_ok_and(|held| held <= items));
            let set = zelf.downcast_ref_if_exact::<PySet>(vm).filter(|set| small && only_strs(set, vm));
            if let Some((set, distinct)) = set.and_then(|set| Some((set, distinct_strs(iterable, vm)?))) {
                add_all(set, distinct?, vm)?;
                return Ok(vm.ctx.none());
            }
        }
        original.call(args, vm)
    });
    set_type.set_attr(name, method.into());
    Ok(())
}

/// `set(iterable)` called on the set type itself (a subclass's call goes RustPython's way, then `init_set`).
fn call_set(
    class: &PyObject,
    args: Vec<PyObjectRef>,
    nargs: usize,
    names: Option<&[PyObjectRef]>,
    vm: &VirtualMachine,
) -> PyResult {
    no_keywords(class, vm.ctx.types.set_type, names, vm)?;
    if let Some(distinct) =
        sole_argument(class, vm.ctx.types.set_type, &args, nargs, names).and_then(|it| distinct_strs(it, vm))
    {
        let set = PySet::default().into_ref(&vm.ctx);
        add_all(&set, distinct?, vm)?;
        return Ok(set.into());
    }
    let own = OWN_SET_CALL.get().expect("installed before any set is made");
    own(class, args, nargs, names, vm)
}

/// `frozenset(iterable)` called on the frozenset type itself. An empty one is left to RustPython, which
/// returns its one empty frozenset.
fn call_frozenset(
    class: &PyObject,
    args: Vec<PyObjectRef>,
    nargs: usize,
    names: Option<&[PyObjectRef]>,
    vm: &VirtualMachine,
) -> PyResult {
    no_keywords(class, vm.ctx.types.frozenset_type, names, vm)?;
    let distinct =
        sole_argument(class, vm.ctx.types.frozenset_type, &args, nargs, names).and_then(|it| distinct_strs(it, vm));
    match distinct {
        Some(Err(error)) => return Err(error),
        Some(Ok(distinct)) if !distinct.is_empty() => {
            let set = PyFrozenSet::from_iter(vm, distinct.into_iter().map(|each| each.first))?;
            return Ok(set.into_ref(&vm.ctx).into());
        }
        _ => {}
    }
    let own = OWN_FROZENSET_CALL.get().expect("installed before any set is made");
    own(class, args, nargs, names, vm)
}

/// CPython's words for `set(iterable=...)` (RustPython's named the keyword as unexpected).
fn no_keywords(
    callee: &PyObject,
    class: &Py<PyType>,
    names: Option<&[PyObjectRef]>,
    vm: &VirtualMachine,
) -> PyResult<()> {
    if callee.is(class) && names.is_some_and(|names| !names.is_empty()) {
        return Err(vm.new_type_error(format!("{}() takes no keyword arguments", class.name())));
    }
    Ok(())
}

/// The one positional argument of a call of exactly `class`, with no keywords.
fn sole_argument<'a>(
    callee: &PyObject,
    class: &Py<PyType>,
    args: &'a [PyObjectRef],
    nargs: usize,
    names: Option<&[PyObjectRef]>,
) -> Option<&'a PyObject> {
    match args {
        [iterable] if nargs == 1 && names.is_none_or(<[_]>::is_empty) && callee.is(class) => Some(iterable),
        _ => None,
    }
}

fn init_set(zelf: &PyObject, args: FuncArgs, vm: &VirtualMachine) -> PyResult<()> {
    if let ([iterable], true) = (args.args.as_slice(), args.kwargs.is_empty()) {
        if let (Some(set), Some(distinct)) = (zelf.downcast_ref::<PySet>(), distinct_strs(iterable, vm)) {
            let distinct = distinct?;
            set.clear();
            return add_all(set, distinct, vm);
        }
    }
    let own = OWN_INIT.get().expect("installed before any set is made");
    own(zelf, args, vm)
}

/// Whether every element of `set` is an exact str: then adding exact strs runs no `__eq__` of the user's (a
/// user object whose hash is a str's would be asked once per element by the loop).
fn only_strs(set: &PySet, vm: &VirtualMachine) -> bool {
    set.elements().iter().all(|element| element.downcast_ref_if_exact::<PyStr>(vm).is_some())
}

fn add_all(set: &PySet, distinct: Vec<Distinct>, vm: &VirtualMachine) -> PyResult<()> {
    for each in distinct {
        set.add(each.first, vm)?;
    }
    Ok(())
}
