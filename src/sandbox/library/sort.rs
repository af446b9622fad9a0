//! `sorted()` and `list.sort()` with the order worked out in native code when every key is an exact `str`,
//! `int` or `float` (not NaN), or a tuple of those with one type per position. RustPython's own sort compares
//! such keys directly too, but its merge steps clone references (an atomic count change per move) and, with a
//! `key`, every (element, key) pair, a large share of sorting a log's lines by a field
//! (`sorted(lines, key=lambda line: line.split(' ', 4)[3])`). Here the order of the keys is found by Rust's
//! stable sort over borrowed views of them, and the elements are moved once.
//!
//! For those keys `<` is a total order and cannot run Python code, so the result is exactly CPython's: stable,
//! `reverse` keeping equal keys in their order. Any other keys go to RustPython's own sort with the keys
//! already made (each `key` call is made once, in order, as CPython makes them), which keeps its errors and
//! its comparisons. Arguments are bound here, in CPython's words. `list.sort` with a `key` has RustPython's own sort call it, so the list is empty
//! while `key` runs and a change to it raises "list modified during sort", as in CPython.

use core::cmp::Ordering;
use std::cell::Cell;

use crate::sandbox::library::method::fast_method;
use malachite_bigint::BigInt;
use num_traits::ToPrimitive;
use rustpython_vm::builtins::{PyBaseExceptionRef, PyFloat, PyInt, PyList, PyStr, PyTuple};
use rustpython_vm::class::PyClassImpl;
use rustpython_vm::function::{FuncArgs, KwArgs};
use rustpython_vm::types::{Callable, PyComparisonOp};
use rustpython_vm::{
    pyclass, AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, Traverse, VirtualMachine,
};

/// A key the order is worked out for here: exact types only (a subclass can define its own `__lt__`).
#[derive(Clone, Copy)]
enum Atom<'a> {
    Int(i64),
    Big(&'a BigInt),
    Float(f64),
    Str(&'a [u8]),
}

impl<'a> Atom<'a> {
    fn of(obj: &'a PyObject, vm: &VirtualMachine) -> Option<Self> {
        if let Some(text) = obj.downcast_ref_if_exact::<PyStr>(vm) {
            // WTF-8 orders as code points do, surrogates included, which is how CPython compares str.
            return Some(Atom::Str(text.as_bytes()));
        }
        if let Some(int) = obj.downcast_ref_if_exact::<PyInt>(vm) {
            let big = int.as_bigint();
            return Some(big.to_i64().map_or(Atom::Big(big), Atom::Int));
        }
        // NaN is left to RustPython's sort: `<` is false both ways, and the order CPython gives depends on
        // where it stands.
        let float = obj.downcast_ref_if_exact::<PyFloat>(vm)?.to_f64();
        (!float.is_nan()).then_some(Atom::Float(float))
    }

    /// Keys compared here must be of one kind at each place: `<` between a str and an int raises.
    fn kind(self) -> u8 {
        match self {
            Atom::Int(_) | Atom::Big(_) => 0,
            Atom::Float(_) => 1,
            Atom::Str(_) => 2,
        }
    }

    fn order(self, other: Self) -> Ordering {
        match (self, other) {
            (Atom::Int(a), Atom::Int(b)) => a.cmp(&b),
            (Atom::Big(a), Atom::Big(b)) => a.cmp(b),
            (Atom::Int(a), Atom::Big(b)) => BigInt::from(a).cmp(b),
            (Atom::Big(a), Atom::Int(b)) => a.cmp(&BigInt::from(b)),
            // Neither is NaN: a total order (0.0 and -0.0 are equal, as `<` has them).
            (Atom::Float(a), Atom::Float(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            (Atom::Str(a), Atom::Str(b)) => a.cmp(b),
            _ => unreachable!("keys of one kind per place are checked before sorting"),
        }
    }
}

/// Every key with its element's position, when all of them can be ordered here (`None` sends the sort to
/// RustPython's). Keys of one kind are kept as plain values side by side, so a comparison reads no pointer.
enum Keys<'a> {
    Ints(Vec<(i64, usize)>),
    Floats(Vec<(f64, usize)>),
    Strs(Vec<(&'a [u8], usize)>),
    /// Ints, some too large for a machine word.
    Atoms(Vec<(Atom<'a>, usize)>),
    /// Each key a tuple of atoms, one kind per position (tuples of any lengths).
    Tuples(Vec<(Vec<Atom<'a>>, usize)>),
}

impl<'a> Keys<'a> {
    fn of(keys: &'a [PyObjectRef], vm: &VirtualMachine) -> Option<Self> {
        let first = keys.first()?;
        if first.downcast_ref_if_exact::<PyTuple>(vm).is_some() {
            let mut kinds: Vec<u8> = Vec::new();
            let mut tuples = Vec::with_capacity(keys.len());
            for (at, key) in keys.iter().enumerate() {
                let items = key.downcast_ref_if_exact::<PyTuple>(vm)?.as_slice();
                let atoms = items.iter().map(|item| Atom::of(item, vm)).collect::<Option<Vec<_>>>()?;
                for (place, atom) in atoms.iter().enumerate() {
                    match kinds.get(place) {
                        Some(&kind) if kind != atom.kind() => return None,
                        Some(_) => {}
                        None => kinds.push(atom.kind()),
                    }
                }
                tuples.push((atoms, at));
            }
            return Some(Keys::Tuples(tuples));
        }
        let atoms = keys.iter().map(|key| Atom::of(key, vm)).collect::<Option<Vec<_>>>()?;
        let kind = atoms[0].kind();
        if atoms.iter().any(|atom| atom.kind() != kind) {
            return None;
        }
        // Plain values where every key has one; the enum where some int is too large for a machine word.
        let keys = match atoms[0] {
            Atom::Str(_) => {
                Keys::Strs(plain(&atoms, |atom| if let Atom::Str(text) = atom { Some(text) } else { None })?)
            }
            Atom::Float(_) => {
                Keys::Floats(plain(&atoms, |atom| if let Atom::Float(x) = atom { Some(x) } else { None })?)
            }
            _ => match plain(&atoms, |atom| if let Atom::Int(n) = atom { Some(n) } else { None }) {
                Some(ints) => Keys::Ints(ints),
                None => Keys::Atoms(atoms.into_iter().enumerate().map(|(at, atom)| (atom, at)).collect()),
            },
        };
        Some(keys)
    }

    /// The positions of the keys in sorted order (stable; `reverse` keeps equal keys in their order, as
    /// CPython's does).
    fn order(self, reverse: bool) -> Vec<usize> {
        fn stable<T>(mut keys: Vec<(T, usize)>, reverse: bool, order: impl Fn(&T, &T) -> Ordering) -> Vec<usize> {
            if reverse {
                keys.sort_by(|a, b| order(&b.0, &a.0));
            } else {
                keys.sort_by(|a, b| order(&a.0, &b.0));
            }
            keys.into_iter().map(|(_, at)| at).collect()
        }
        match self {
            Keys::Ints(keys) => stable(keys, reverse, Ord::cmp),
            // Neither is NaN: a total order (0.0 and -0.0 are equal, as `<` has them).
            Keys::Floats(keys) => stable(keys, reverse, |a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal)),
            Keys::Strs(keys) => stable(keys, reverse, |a, b| a.cmp(b)),
            Keys::Atoms(keys) => stable(keys, reverse, |a, b| a.order(*b)),
            // Tuples compare at their first unequal place, then by length.
            Keys::Tuples(keys) => stable(keys, reverse, |a, b| {
                a.iter().zip(b).map(|(x, y)| x.order(*y)).find(|o| o.is_ne()).unwrap_or(a.len().cmp(&b.len()))
            }),
        }
    }
}

/// Each atom's value with its position, if every atom has one of that form.
fn plain<'a, T>(atoms: &[Atom<'a>], value: impl Fn(Atom<'a>) -> Option<T>) -> Option<Vec<(T, usize)>> {
    atoms.iter().enumerate().map(|(at, atom)| value(*atom).map(|v| (v, at))).collect()
}

/// Where each element goes (the positions of the keys in sorted order), when the keys can be ordered here.
fn sorted_positions(keys: &[PyObjectRef], reverse: bool, vm: &VirtualMachine) -> Option<Vec<usize>> {
    Keys::of(keys, vm).map(|keys| keys.order(reverse))
}

/// The elements at `positions`, moved (no count changes on the way).
fn rearranged(elements: Vec<PyObjectRef>, positions: Vec<usize>) -> Vec<PyObjectRef> {
    let mut slots: Vec<Option<PyObjectRef>> = elements.into_iter().map(Some).collect();
    positions.into_iter().map(|at| slots[at].take().expect("each position once")).collect()
}

/// `key=` and `reverse=`, bound as CPython's `list.sort` binds them (`sorted` passes its keywords on to it):
/// keywords only, `key=None` for no key, any truth value for `reverse`.
fn options(kwargs: KwArgs, vm: &VirtualMachine) -> PyResult<(Option<PyObjectRef>, bool)> {
    let mut key = None;
    let mut reverse = false;
    for (name, value) in kwargs {
        match name.as_bytes() {
            b"key" => key = (!vm.is_none(&value)).then_some(value),
            b"reverse" => reverse = value.try_to_bool(vm)?,
            _ => return Err(vm.new_type_error(format!("sort() got an unexpected keyword argument '{name}'"))),
        }
    }
    Ok((key, reverse))
}

/// RustPython's own `list.sort`.
#[derive(Clone)]
struct Fallback {
    sort: PyObjectRef,
}

/// A `key` given to RustPython's sort, made per call as an object that goes with the call (a native closure
/// would live as long as the process: RustPython leaks them, `Context::new_method_def`, and with it the caller's
/// key function and all it holds). With the caller's `key`, each key it makes is recorded in `made`, and the same
/// one answered; without, `made`'s keys are answered in order.
#[pyclass(module = false, name = "sort_key", traverse)]
#[derive(Debug, PyPayload)]
struct SortKey {
    key: Option<PyObjectRef>,
    made: PyRef<PyList>,
    #[pytraverse(skip)]
    next: Cell<usize>,
}

#[pyclass(with(Callable), flags(DISALLOW_INSTANTIATION))]
impl SortKey {}

impl Callable for SortKey {
    type Args = FuncArgs;

    fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        match &zelf.key {
            Some(key) => {
                let made = key.call(args, vm)?;
                zelf.made.borrow_vec_mut().push(made);
                Ok(vm.ctx.new_int(0).into())
            }
            None => {
                let at = zelf.next.get();
                zelf.next.set(at + 1);
                let made = zelf.made.borrow_vec().get(at).cloned();
                made.ok_or_else(|| vm.new_runtime_error("sort: key called more often than there are elements"))
            }
        }
    }
}

impl Fallback {
    /// Sort `list` (holding `elements`) by RustPython's sort; `keys` are the keys of the elements, in order.
    /// With `reverse`, as CPython does it: the elements (and keys) reversed, sorted, and reversed back (also
    /// when a comparison fails), so its comparisons see their operands the way CPython's do.
    fn sort(
        &self,
        list: &PyRef<PyList>,
        keys: Option<Vec<PyObjectRef>>,
        reverse: bool,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        if reverse {
            list.borrow_vec_mut().reverse();
        }
        let mut kwargs = KwArgs::default();
        if let Some(mut keys) = keys {
            if reverse {
                keys.reverse();
            }
            // RustPython's sort calls `key` once per element, in order (`do_sort`).
            let made = SortKey { key: None, made: vm.ctx.new_list(keys), next: Cell::new(0) }.into_ref(&vm.ctx);
            kwargs = [("key", made.into())].into_iter().collect();
        }
        let sorted = self.sort.call(FuncArgs::new(vec![list.clone().into()], kwargs), vm);
        if reverse {
            list.borrow_vec_mut().reverse();
        }
        sorted.map(drop)
    }

    /// `list.sort(key=key)`: RustPython's sort calls `key` (the list empty meanwhile, a change to it caught) and
    /// keeps the order, since every key it is given is the same; the keys are then ordered here if they can be.
    /// With the keys, the error to raise once the list is sorted: CPython sorts a list changed by its key (the
    /// change undone) and then raises "list modified during sort".
    fn keys_by_list_sort(
        &self,
        list: &PyRef<PyList>,
        key: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<(Vec<PyObjectRef>, Option<PyBaseExceptionRef>)> {
        let length = list.borrow_vec().len();
        let made = vm.ctx.new_list(Vec::with_capacity(length));
        let recording = SortKey { key: Some(key), made: made.clone(), next: Cell::new(0) }.into_ref(&vm.ctx);
        let kwargs: KwArgs = [("key", recording.into())].into_iter().collect();
        let outcome = self.sort.call(FuncArgs::new(vec![list.clone().into()], kwargs), vm);
        let keys = std::mem::take(&mut *made.borrow_vec_mut());
        match outcome {
            Ok(_) => Ok((keys, None)),
            // Every key made, and equal keys cannot fail to compare: the error is the list's change.
            Err(error) if keys.len() == length && list.borrow_vec().len() == length => Ok((keys, Some(error))),
            Err(error) => Err(error),
        }
    }
}

/// Sort `list` in place: the elements themselves are the keys when `key` is None.
fn sort_list(
    fallback: &Fallback,
    list: &PyRef<PyList>,
    key: Option<PyObjectRef>,
    reverse: bool,
    vm: &VirtualMachine,
) -> PyResult<()> {
    let Some(key) = key else { return sort_by_keys(fallback, list, None, reverse, vm) };
    let (keys, changed) = fallback.keys_by_list_sort(list, key, vm)?;
    sort_by_keys(fallback, list, Some(keys), reverse, vm)?;
    changed.map_or(Ok(()), Err)
}

/// Sort `list` by `keys`, made already (one per element, in order), or by its elements themselves. No Python
/// code runs while the keys are ordered here, so nothing can change the list meanwhile; keys that cannot be
/// ordered here go to RustPython's sort.
fn sort_by_keys(
    fallback: &Fallback,
    list: &PyRef<PyList>,
    keys: Option<Vec<PyObjectRef>>,
    reverse: bool,
    vm: &VirtualMachine,
) -> PyResult<()> {
    let mut elements = list.borrow_vec_mut();
    let positions = match &keys {
        None => sorted_positions(&elements, reverse, vm),
        // The lengths match unless RustPython's sort stops giving every element a key.
        Some(keys) => (elements.len() == keys.len()).then(|| sorted_positions(keys, reverse, vm)).flatten(),
    };
    if let Some(positions) = positions {
        let taken = std::mem::take(&mut *elements);
        *elements = rearranged(taken, positions);
        return Ok(());
    }
    drop(elements);
    fallback.sort(list, keys, reverse, vm)
}

/// `sorted(iterable, /, *, key=None, reverse=False)`: a new list, sorted. Nothing else sees the list, so the
/// keys are made here directly, once each, in order.
fn sorted(fallback: &Fallback, iterable: &PyObject, kwargs: KwArgs, vm: &VirtualMachine) -> PyResult {
    // CPython makes the list first, then passes the keywords to its `sort`.
    let elements = vm.extract_elements_with(iterable, Ok)?;
    let (key, reverse) = options(kwargs, vm)?;
    let Some(key) = key else {
        let list = vm.ctx.new_list(elements);
        sort_list(fallback, &list, None, reverse, vm)?;
        return Ok(list.into());
    };
    let keys = elements.iter().map(|element| key.call((element.clone(),), vm)).collect::<PyResult<Vec<_>>>()?;
    let list = vm.ctx.new_list(elements);
    sort_by_keys(fallback, &list, Some(keys), reverse, vm)?;
    Ok(list.into())
}

/// `a < b`, as the `<` operator answers it: keys ordered here are compared here, anything else by the
/// operator (`heapq.nlargest`'s comparisons).
pub fn less(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
    match (Atom::of(a, vm), Atom::of(b, vm)) {
        (Some(x), Some(y)) if x.kind() == y.kind() => Ok(x.order(y).is_lt()),
        _ => a.rich_compare_bool(b, PyComparisonOp::Lt, vm),
    }
}

/// Put them in `builtins` and on `list` (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let list_type = vm.ctx.types.list_type;
    let name = vm.ctx.intern_str("sort");
    let original_sort = list_type.as_object().get_attr(name, vm)?;

    // Made once (the zygote): a key can only be made of a type made before.
    let _made = SortKey::make_static_type();
    let fallback = Fallback { sort: original_sort };
    let sorted_fallback = fallback.clone();
    let method = fast_method(vm, "sort", list_type, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let FuncArgs { args: positional, kwargs } = args;
        let list = match positional.as_slice() {
            [zelf] => zelf.clone().downcast::<PyList>().ok(),
            [_, _, ..] => return Err(vm.new_type_error("sort() takes no positional arguments")),
            [] => None,
        };
        // An unbound call without a list: RustPython's own method says what it needs.
        let Some(list) = list else { return fallback.sort.call(FuncArgs::new(positional, kwargs), vm) };
        let (key, reverse) = options(kwargs, vm)?;
        sort_list(&fallback, &list, key, reverse, vm)?;
        Ok(vm.ctx.none())
    });
    list_type.set_attr(name, method.into());

    let fallback = sorted_fallback;
    let function = vm.new_function("sorted", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let FuncArgs { args: positional, kwargs } = args;
        let [iterable] = positional.as_slice() else {
            return Err(vm.new_type_error(format!("sorted expected 1 argument, got {}", positional.len())));
        };
        sorted(&fallback, iterable, kwargs, vm)
    });
    vm.builtins.set_attr("sorted", function, vm)?;
    Ok(())
}
