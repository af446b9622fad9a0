//! `heapq.nlargest` and `heapq.nsmallest` in native code. CPython's are Python, but its loop over the data is
//! a few bytecodes per element that CPython runs fast and RustPython's interpreter does not, and
//! `heapq.nlargest(10, lines, key=len)` runs it for every line of a text. This is the same algorithm step
//! for step (the same shortcuts through `max`/`min` and `sorted`, the same decorated tuples and order counter,
//! the same `heapify`/`heapreplace` functions of `heapq`, the same comparisons in the same order), so results,
//! ties, errors and the calls made to `key` and to the elements' comparisons are CPython's. Calls it does not
//! bind as (n: int, iterable, key=None) go to the original, which raises CPython's errors.

use rustpython_vm::builtins::{PyInt, PyList, PyTuple};
use rustpython_vm::function::{FuncArgs, KwArgs};
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

use super::sort::less;

/// How many elements between checks for a stop (the time limit, an interrupt).
const CHECK_EVERY: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Largest,
    Smallest,
}

/// What one of the two functions uses, taken from `heapq` and `builtins` when installed.
struct Select {
    side: Side,
    /// `heapq`'s own function, for calls bound otherwise.
    original: PyObjectRef,
    /// `heapify` / `heapify_max`, and `heapreplace` / `heapreplace_max`, as `heapq` uses them.
    heapify: PyObjectRef,
    replace: PyObjectRef,
    /// `max` / `min`, the shortcut for n == 1.
    extreme: PyObjectRef,
    sorted: PyObjectRef,
    /// The builtin `len`, to recognise `key=len`.
    len: PyObjectRef,
}

/// `(n, iterable, key)` when the call is bound as the fast path takes it.
fn bind(args: &FuncArgs) -> Option<(i64, PyObjectRef, Option<PyObjectRef>)> {
    let key = match (args.args.len(), args.kwargs.len()) {
        (3, 0) => args.args[2].clone(),
        (2, 0) => return Some((int(&args.args[0])?, args.args[1].clone(), None)),
        (2, 1) => args.kwargs.get("key")?.clone(),
        _ => return None,
    };
    Some((int(&args.args[0])?, args.args[1].clone(), Some(key)))
}

fn int(n: &PyObjectRef) -> Option<i64> {
    n.downcast_ref::<PyInt>().and_then(|n| i64::try_from(n.as_bigint()).ok())
}

impl Select {
    fn call(&self, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        let Some((n, iterable, key)) = bind(&args) else { return self.original.call(args, vm) };
        let key = key.filter(|key| !vm.is_none(key));
        let none = || vm.ctx.none();
        if n == 1 {
            let sentinel = vm.ctx.new_base_object(vm.ctx.types.object_type.to_owned(), None);
            let kwargs: KwArgs =
                [("default", sentinel.clone()), ("key", key.unwrap_or_else(none))].into_iter().collect();
            let result = self.extreme.call(FuncArgs::new(vec![iterable.get_iter(vm)?.into()], kwargs), vm)?;
            let found = if result.is(&sentinel) { vec![] } else { vec![result] };
            return Ok(vm.ctx.new_list(found).into());
        }
        match iterable.length(vm) {
            Ok(size) if n >= 0 && n as u64 >= size as u64 => {
                let mut kwargs: Vec<(&str, PyObjectRef)> = vec![("key", key.unwrap_or_else(none))];
                if self.side == Side::Largest {
                    kwargs.push(("reverse", vm.ctx.new_bool(true).into()));
                }
                let kwargs: KwArgs = kwargs.into_iter().collect();
                // `sorted(...)[:n]` with n at least the length: the whole list.
                return self.sorted.call(FuncArgs::new(vec![iterable], kwargs), vm);
            }
            Ok(_) => {}
            Err(error)
                if error.fast_isinstance(vm.ctx.exceptions.type_error)
                    || error.fast_isinstance(vm.ctx.exceptions.attribute_error) => {}
            Err(error) => return Err(error),
        }
        let iterator = iterable.get_iter(vm)?;
        let step: i64 = if self.side == Side::Largest { -1 } else { 1 };
        let decorate = |k: PyObjectRef, order: i64, elem: PyObjectRef| -> PyObjectRef {
            let order = vm.ctx.new_int(order).into();
            match key {
                Some(_) => vm.ctx.new_tuple(vec![k, order, elem]).into(),
                None => vm.ctx.new_tuple(vec![k, order]).into(),
            }
        };
        // `len` as the key (the common `key=len`) is asked directly: the same `__len__`, without a call's frame.
        let by_length = key.as_ref().is_some_and(|key| key.is(&self.len));
        let keyed = |elem: &PyObjectRef| -> PyResult {
            match &key {
                Some(_) if by_length => Ok(vm.ctx.new_int(elem.length(vm)?).into()),
                Some(key) => key.call((elem.clone(),), vm),
                None => Ok(elem.clone()),
            }
        };
        // The first n elements, taken before any other (CPython zips `range` first, so none more is consumed).
        let mut first = Vec::new();
        for i in 0..n.max(0) {
            match iterator.next(vm)? {
                PyIterReturn::Return(elem) => first.push(decorate(keyed(&elem)?, i * step, elem)),
                PyIterReturn::StopIteration(_) => break,
            }
        }
        if first.is_empty() {
            return Ok(vm.ctx.new_list(first).into());
        }
        let result = vm.ctx.new_list(first);
        self.heapify.call((result.clone(),), vm)?;
        let top = |result: &PyList| -> PyObjectRef {
            let head = result.borrow_vec()[0].clone();
            head.downcast_ref::<PyTuple>().expect("the heap holds the tuples made here").as_slice()[0].clone()
        };
        let mut best = top(&result);
        let mut order = n * step;
        let mut seen = 0usize;
        loop {
            let elem = match iterator.next(vm)? {
                PyIterReturn::Return(elem) => elem,
                PyIterReturn::StopIteration(_) => break,
            };
            seen += 1;
            if seen.is_multiple_of(CHECK_EVERY) {
                vm.check_signals()?;
            }
            let k = keyed(&elem)?;
            let better = match self.side {
                Side::Largest => less(&best, &k, vm)?,
                Side::Smallest => less(&k, &best, vm)?,
            };
            if better {
                self.replace.call((result.clone(), decorate(k, order, elem)), vm)?;
                best = top(&result);
                order += step;
            }
        }
        let sort_kwargs: KwArgs = match self.side {
            Side::Largest => [("reverse", vm.ctx.new_bool(true).into())].into_iter().collect(),
            Side::Smallest => KwArgs::default(),
        };
        vm.call_method(result.as_object(), "sort", FuncArgs::new(Vec::<PyObjectRef>::new(), sort_kwargs))?;
        // (k, order, elem) with a key, (elem, order) without.
        let at = if key.is_some() { 2 } else { 0 };
        let elements = result
            .borrow_vec()
            .iter()
            .map(|item| item.downcast_ref::<PyTuple>().expect("the tuples made here").as_slice()[at].clone())
            .collect();
        Ok(vm.ctx.new_list(elements).into())
    }
}

/// Put them in `heapq` (the zygote does it once, before sandbox code imports it).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let heapq = vm.import("heapq", 0)?;
    for (name, side, heapify, replace, extreme) in [
        ("nlargest", Side::Largest, "heapify", "heapreplace", "max"),
        ("nsmallest", Side::Smallest, "heapify_max", "heapreplace_max", "min"),
    ] {
        let select = Select {
            side,
            original: heapq.get_attr(name, vm)?,
            heapify: heapq.get_attr(heapify, vm)?,
            replace: heapq.get_attr(replace, vm)?,
            extreme: vm.builtins.get_attr(extreme, vm)?,
            sorted: vm.builtins.get_attr("sorted", vm)?,
            len: vm.builtins.get_attr("len", vm)?,
        };
        let function = vm.new_function(name, move |args: FuncArgs, vm: &VirtualMachine| select.call(args, vm));
        heapq.set_attr(name, function, vm)?;
    }
    Ok(())
}
