//! Regular expressions with a linear-time search. `_sre`, RustPython's port of CPython's
//! backtracking engine, tries a match at every position of the subject: a 10 MB context scanned for a rare
//! pattern costs ten million tries, and a pattern like `(a+)+$` on a long run of `a`s never finishes. Here a
//! finite automaton (`regex-automata`, with its literal and SIMD prefilters) reads the subject once and names
//! each place a match can start; `_sre` tries only there, so every result (spans, groups, `lastindex`, empty
//! matches) is still the engine's own.
//!
//! - `translate` reads the compiled `_sre` program back into an automaton whose matches are a superset of
//!   the program's (or, read exactly, the same); a program it cannot read (backreferences, conditionals,
//!   `re.LOCALE`, bytes) keeps RustPython's own search, unchanged.
//! - `classes` makes the automaton's character classes from the same predicates and tables `_sre` uses.
//! - `scan` runs the search: automaton, then engine, positions converted through the string's index table.
//! - This file hooks it in: `_sre.compile` keeps each pattern's program beside it, and the `Pattern`
//!   methods that search (`search`, `findall`, `finditer`, `sub`, `subn`, `split`; `match` and `fullmatch`
//!   ask the automaton first) take the fast path when the subject is a `str` the automaton can read, and call
//!   RustPython's own method otherwise, so argument errors keep its words; a negative `pos` or `endpos`
//!   counts as 0 on both paths, as in CPython (RustPython's raises "can't convert negative number to
//!   unsigned").
//!
//! `Match` objects are of our own type (`matched`), made from what the search found. Where `translate` reads a
//! program exactly and it cannot match empty, its automaton's matches and captures are `_sre`'s own, and the
//! engine does not run at all: every method takes the spans from the automaton (running the engine again at
//! each match is most of the cost of `re.sub` of dates over a long text).

mod arguments;
mod classes;
mod compiled;
mod fixed;
mod lead;
mod matched;
mod matches;
mod module;
mod run;
mod scan;
mod template;
mod translate;

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::{PyBytes, PyCallableIterator, PyDict, PyList, PyStr, PyStrRef, PyTuple};
use rustpython_vm::convert::ToPyObject;
use rustpython_vm::function::{ArgCallable, FuncArgs};
use rustpython_vm::protocol::{PyIter, PyIterReturn};
use rustpython_vm::{AsObject, PyObjectRef, PyPayload, PyResult, TryFromObject, VirtualMachine};

use matched::{Match, Searched, Spans};
use scan::{Found, Search, Text};

use crate::sandbox::library::str_methods::shared::SharedStrs;
use arguments::{int, subject_len};
use compiled::{compiled, register, Compiled};
use template::{parse_template, Piece};

/// What the shortcuts' tests share: a pattern in `regex-syntax`'s own syntax, every span of a set of subjects.
#[cfg(test)]
mod testing {
    use regex_automata::Input;

    pub fn parsed(pattern: &str) -> regex_syntax::hir::Hir {
        regex_syntax::ParserBuilder::new().build().parse(pattern).unwrap()
    }

    /// Every span of each subject, as an unanchored input.
    pub fn every_input<'s>(subjects: &[&'s str]) -> Vec<Input<'s>> {
        let spans = |subject: &'s str| {
            (0..=subject.len())
                .flat_map(move |start| (start..=subject.len()).map(move |end| Input::new(subject).range(start..end)))
        };
        subjects.iter().flat_map(|&subject| spans(subject)).collect()
    }
}

/// Build the tables the automata's classes come from (the zygote calls this before it forks).
pub fn warm() {
    classes::warm();
}

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let sre = vm.import("_sre", 0)?;
    let original_compile = sre.get_attr("compile", vm)?;
    let compile = vm.new_function("compile", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        // `re._compiler` calls `_sre.compile(pattern, flags, code, groups, groupindex, indexgroup)`.
        let program = match (args.args.as_slice(), args.kwargs.is_empty()) {
            ([pattern, _, code, groups, rest @ ..], true) if pattern.downcastable::<PyStr>() => {
                let code: Option<Vec<u32>> = code.try_to_value(vm).ok();
                let groups: Option<usize> = groups.try_to_value(vm).ok();
                let groupindex = rest.first().and_then(|index| index.clone().downcast::<PyDict>().ok());
                code.zip(groups).map(|(code, groups)| (code, groups, groupindex))
            }
            _ => None,
        };
        let pattern = original_compile.call(args, vm)?;
        if let Some((code, groups, groupindex)) = program {
            let compiled = Compiled {
                code,
                groups,
                groupindex,
                ascii: OnceCell::new(),
                unicode: OnceCell::new(),
                whole_ascii: OnceCell::new(),
                whole_unicode: OnceCell::new(),
                template: RefCell::new(None),
            };
            register(&pattern, compiled, vm)?;
        }
        Ok(pattern)
    });
    sre.set_attr("compile", compile, vm)?;

    let pattern_type = crate::sandbox::library::method::module_class(vm, "_sre", "Pattern")?;
    let original = |name: &str| pattern_type.as_object().get_attr(vm.ctx.intern_str(name), vm);
    matched::install(&sre, vm)?;
    matches::install();
    let methods: [(&'static str, Method); 9] = [
        ("search", search),
        ("match", match_),
        ("fullmatch", fullmatch),
        ("findall", findall),
        ("finditer", finditer),
        ("split", split),
        ("sub", sub),
        ("subn", subn),
        ("scanner", |_, _, _| None),
    ];
    let mut methods_by_name = HashMap::new();
    for (name, method) in methods {
        let own = original(name)?;
        let body: module::PatternMethod = Rc::new(move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            let fast = match args.args.first().and_then(|zelf| compiled(zelf)) {
                Some(compiled) => method(&compiled, &args, vm),
                None => None,
            };
            match fast {
                Some(result) => result,
                None => own_method(name, &own, args, vm),
            }
        });
        let called = body.clone();
        let bound = crate::sandbox::library::method::fast_method(
            vm,
            name,
            pattern_type,
            move |args: FuncArgs, vm: &VirtualMachine| called(args, vm),
        );
        pattern_type.set_attr(vm.ctx.intern_str(name), bound.into());
        methods_by_name.insert(name, body);
    }
    module::install(&methods_by_name, vm)
}

/// `(self, string, pos, endpos)`: a negative position becomes 0.
fn negative_positions_to_zero(mut args: FuncArgs, vm: &VirtualMachine) -> FuncArgs {
    let negative = |value: &PyObjectRef| int_arg(Some(value), 0).is_some_and(|value| value < 0);
    for index in [2, 3] {
        if let Some(position) = args.args.get_mut(index).filter(|position| negative(position)) {
            *position = vm.ctx.new_int(0).into();
        }
    }
    for (name, position) in args.kwargs.iter_mut() {
        if (name.as_bytes() == b"pos" || name.as_bytes() == b"endpos") && negative(position) {
            *position = vm.ctx.new_int(0).into();
        }
    }
    args
}

/// RustPython's own method `name`, with its `Match` objects made ours (`Match::from_engine`): the result of
/// `search`, `match` and `fullmatch`, each item of `finditer`, what a callable given to `sub` or `subn` is
/// called with. A negative `pos` or `endpos` counts as 0.
fn own_method(name: &'static str, own: &PyObjectRef, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let mut args = args;
    // A subject behind a lock (a bytearray, an array, a memoryview of one) is searched as a copy: see `Pinned`.
    let pinned = Pinned::subject_of(&mut args, if matches!(name, "sub" | "subn") { 2 } else { 1 }, vm)?;
    let result = own_method_of(name, own, args, pinned.as_ref(), vm);
    if let (Some(pinned), false) = (&pinned, name == "finditer") {
        // The export ends with the call, as CPython's view does (a `finditer`'s with its iterator).
        vm.call_method(&pinned.view, "release", ())?;
    }
    result
}

fn own_method_of(
    name: &'static str,
    own: &PyObjectRef,
    mut args: FuncArgs,
    pinned: Option<&Pinned>,
    vm: &VirtualMachine,
) -> PyResult {
    let subject = pinned.map(|pinned| &pinned.original);
    // CPython's search finds nothing where `pos` is past `endpos` (both clamped into the subject); RustPython's
    // searches from `endpos` and can find an empty match there (the scanner, like CPython, finds none).
    // Read once (`__index__` is the user's code): what `Match::from_engine` reports, and the test above.
    let positions = if matches!(name, "search" | "match" | "fullmatch" | "findall" | "finditer") {
        positions(&args, vm)
    } else {
        None
    };
    if matches!(name, "search" | "findall" | "finditer") && past_endpos(&args, positions, vm) {
        return match name {
            "search" => Ok(vm.ctx.none()),
            "findall" => Ok(vm.ctx.new_list(Vec::new()).into()),
            _ => vm.ctx.new_list(Vec::new()).as_object().get_iter(vm).map(Into::into),
        };
    }
    let none = || vm.ctx.none();
    match name {
        "search" | "match" | "fullmatch" => {
            Match::from_engine(own.call(negative_positions_to_zero(args, vm), vm)?, positions, subject, vm)
        }
        "finditer" => {
            let iterator = own.call(negative_positions_to_zero(args, vm), vm)?;
            let (pos, endpos) = match positions {
                Some((pos, endpos)) => (vm.ctx.new_int(pos).into(), vm.ctx.new_int(endpos).into()),
                None => (none(), none()),
            };
            // The subject's view goes with the iterator, as CPython's scanner keeps its own.
            let (subject, view) =
                pinned.map_or((none(), none()), |pinned| (pinned.original.clone(), pinned.view.clone()));
            let adapters = Adapters::get(vm)?;
            let next = adapters.partial.call((adapters.next.clone(), iterator, pos, endpos, subject, view), vm)?;
            let next = ArgCallable::try_from_object(vm, next)?;
            Ok(PyCallableIterator::new(next, vm.ctx.none()).into_ref(&vm.ctx).into())
        }
        "sub" | "subn" => {
            let repl = match args.args.get_mut(1) {
                Some(repl) => Some(repl),
                None => args.kwargs.iter_mut().find(|(name, _)| name.as_bytes() == b"repl").map(|(_, repl)| repl),
            };
            if let Some(repl) = repl.filter(|repl| repl.is_callable()) {
                let adapters = Adapters::get(vm)?;
                let subject = subject.cloned().unwrap_or_else(none);
                *repl = adapters.partial.call((adapters.repl.clone(), repl.clone(), subject), vm)?;
            }
            own.call(args, vm)
        }
        "split" => own.call(args, vm),
        _ => own.call(negative_positions_to_zero(args, vm), vm),
    }
}

/// What RustPython's own `sub` and `finditer` are given in place of the caller's callable and of a plain
/// iterator, so their `Match` objects are ours. A native function's closure lives as long as the process
/// (RustPython leaks it, `Context::new_method_def`): these two are made once, and each call's objects are bound
/// to them with `functools.partial`, which lets them go with the call (or the iterator).
struct Adapters {
    partial: PyObjectRef,
    /// `repl(callable, subject, found)`: the caller's callable with our `Match`.
    repl: PyObjectRef,
    /// `next(iterator, pos, endpos, subject, view)`: the engine iterator's next match as ours, None at its end.
    next: PyObjectRef,
}

thread_local! {
    static ADAPTERS: OnceCell<Rc<Adapters>> = const { OnceCell::new() };
}

impl Adapters {
    fn get(vm: &VirtualMachine) -> PyResult<Rc<Adapters>> {
        if let Some(made) = ADAPTERS.with(|adapters| adapters.get().cloned()) {
            return Ok(made);
        }
        let partial = vm.import("functools", 0)?.get_attr("partial", vm)?;
        // A `sub` match's `pos` and `endpos` are the whole subject's (clamped to it there).
        let repl = vm.new_function(
            "repl",
            |callable: PyObjectRef, subject: PyObjectRef, found: PyObjectRef, vm: &VirtualMachine| -> PyResult {
                let subject = (!vm.is_none(&subject)).then_some(&subject);
                callable.call((Match::from_engine(found, Some((0, usize::MAX)), subject, vm)?,), vm)
            },
        );
        let next = vm.new_function(
            "finditer",
            |iterator: PyObjectRef,
             pos: PyObjectRef,
             endpos: PyObjectRef,
             subject: PyObjectRef,
             _view: PyObjectRef,
             vm: &VirtualMachine|
             -> PyResult {
                let positions = match vm.is_none(&pos) {
                    true => None,
                    false => Some((pos.try_to_value::<usize>(vm)?, endpos.try_to_value::<usize>(vm)?)),
                };
                let subject = (!vm.is_none(&subject)).then_some(&subject);
                match PyIter::try_from_object(vm, iterator)?.next(vm)? {
                    PyIterReturn::Return(found) => Match::from_engine(found, positions, subject, vm),
                    PyIterReturn::StopIteration(_) => Ok(vm.ctx.none()),
                }
            },
        );
        let made = Rc::new(Adapters { partial, repl: repl.into(), next: next.into() });
        Ok(ADAPTERS.with(|adapters| adapters.get_or_init(|| made).clone()))
    }
}

/// A subject whose bytes sit behind a lock (a bytearray, an `array.array`, a memoryview or mmap of one), held
/// for RustPython's `_sre`, which keeps that lock through a whole call while Python code runs in it (a `repl`
/// callable; a `__del__` run by a collection any allocation may start): a write to the subject from that code
/// would panic on the lock and end the session process. RustPython searches a copy, made under the lock and let
/// go of at once; a view of the original is held meanwhile, so resizing it raises BufferError, as CPython's held
/// view makes it, and the matches report the original as their `string`.
struct Pinned {
    original: PyObjectRef,
    view: PyObjectRef,
}

impl Pinned {
    /// The subject at `at` among `args` (or given as `string=`) pinned, with a copy put in its place; None for a
    /// `str` or `bytes` (nothing to lock), or for anything that exports no buffer (RustPython then says why).
    fn subject_of(args: &mut FuncArgs, at: usize, vm: &VirtualMachine) -> PyResult<Option<Pinned>> {
        let slot = match args.args.get_mut(at) {
            Some(slot) => slot,
            None => match args.kwargs.iter_mut().find(|(name, _)| name.as_bytes() == b"string") {
                Some((_, value)) => value,
                None => return Ok(None),
            },
        };
        if slot.downcastable::<PyStr>() || slot.downcastable::<PyBytes>() {
            return Ok(None);
        }
        let Ok(view) = vm.ctx.types.memoryview_type.as_object().call((slot.clone(),), vm) else { return Ok(None) };
        let copy = vm.ctx.types.bytes_type.as_object().call((view.clone(),), vm)?;
        let original = std::mem::replace(slot, copy);
        Ok(Some(Pinned { original, view }))
    }
}

/// Whether a search's `pos` is past its `endpos` (`positions`) once both are clamped into the subject.
fn past_endpos(args: &FuncArgs, positions: Option<(usize, usize)>, vm: &VirtualMachine) -> bool {
    let Some((pos, endpos)) = positions else { return false };
    let Some(string) =
        args.args.get(1).or_else(|| args.kwargs.iter().find(|(name, _)| name.as_bytes() == b"string").map(|(_, v)| v))
    else {
        return false;
    };
    let Some(len) = subject_len(string, vm) else { return false };
    pos.min(len) > endpos.min(len)
}

/// The `pos` and `endpos` of a search's arguments (negative ones as 0), when they bind (anything with
/// `__index__` counts, as in CPython; one that raises leaves the error to RustPython's method).
fn positions(args: &FuncArgs, vm: &VirtualMachine) -> Option<(usize, usize)> {
    let bound = bind(args, &["string", "pos", "endpos"], 1)?;
    let index = |value: Option<&PyObjectRef>, default: isize| -> Option<isize> {
        match value {
            None => Some(default),
            Some(value) => value.try_index(vm).ok()?.as_bigint().try_into().ok(),
        }
    };
    let (pos, endpos) = (index(bound[1], 0)?, index(bound[2], isize::MAX)?);
    Some((pos.max(0) as usize, endpos.max(0) as usize))
}

/// A fast path: `None` hands the call to RustPython's own method (arguments it does not expect, a subject the
/// automaton cannot read, a program it cannot translate).
type Method = fn(&Rc<Compiled>, &FuncArgs, &VirtualMachine) -> Option<PyResult>;

/// The arguments after `self` (at most three), by position or keyword, in the order of `names`; `None` when
/// they do not fit.
fn bind<'a>(args: &'a FuncArgs, names: &[&str], required: usize) -> Option<[Option<&'a PyObjectRef>; 3]> {
    let positional = args.args.get(1..)?;
    if positional.len() > names.len() {
        return None;
    }
    let mut bound: [Option<&PyObjectRef>; 3] = [None; 3];
    for (slot, value) in bound.iter_mut().zip(positional) {
        *slot = Some(value);
    }
    for (name, value) in args.kwargs.iter() {
        let at = names.iter().position(|n| n.as_bytes() == name.as_bytes())?;
        if bound[at].replace(value).is_some() {
            return None;
        }
    }
    bound[..required].iter().all(Option::is_some).then_some(bound)
}

/// An `int` argument (`pos`, `endpos`, `count`, `maxsplit`) as CPython reads it; `None` for anything else.
fn int_arg(value: Option<&PyObjectRef>, default: isize) -> Option<isize> {
    value.map_or(Some(default), |value| int(value))
}

/// `pos`/`endpos` clamped into the subject as CPython's `_sre` does (negative is 0, past the end is the end).
fn clamp(value: isize, len: usize) -> usize {
    value.clamp(0, len as isize) as usize
}

/// The subject, `pos` and `endpos` of a search method, and its automaton.
struct Call<'a> {
    string: &'a PyObjectRef,
    text: Text<'a>,
    pos: usize,
    end: usize,
}

fn subject_call<'a>(args: &'a FuncArgs) -> Option<Call<'a>> {
    let bound = bind(args, &["string", "pos", "endpos"], 1)?;
    let string = bound[0]?;
    let text = Text::new(string.downcast_ref::<PyStr>()?)?;
    let len = text.len();
    let pos = clamp(int_arg(bound[1], 0)?, len);
    let end = clamp(int_arg(bound[2], isize::MAX)?, len);
    Some(Call { string, text, pos, end })
}

fn search(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    let call = subject_call(args)?;
    let automaton = compiled.automaton(call.text.is_ascii(), false)?;
    let search = Search::new(&call.text, &compiled.code, automaton, call.end);
    let spans = with_found(|found| search.next(call.pos, false, found).then(|| Spans::of(found, compiled.groups)));
    Some(Ok(match spans {
        Some(spans) => {
            Match::from_spans(spans, &Searched::of(compiled, &args.args[0], call.string, call.pos, call.end), vm)
        }
        None => vm.ctx.none(),
    }))
}

/// `f` given the session's one `Found` for a single search (its captures and vectors kept from call to call).
/// Nothing that runs Python code may be called inside: a `Match` is made after, from its `Spans`.
fn with_found<R>(f: impl FnOnce(&mut Found) -> R) -> R {
    thread_local! {
        static FOUND: RefCell<Found> = RefCell::new(Found::default());
    }
    FOUND.with_borrow_mut(f)
}

/// `match`: the engine at `pos` only; where the automaton cannot match there, neither can the engine, and a
/// pattern that would backtrack for ever there answers at once.
fn match_(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    anchored(compiled, args, false, vm)
}

/// `fullmatch`: the same, asking an automaton whose matches end at `endpos` (RustPython's engine can take
/// exponential time and memory proving there is none: a lazy repeat of a group that can match empty).
fn fullmatch(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    anchored(compiled, args, true, vm)
}

fn anchored(compiled: &Rc<Compiled>, args: &FuncArgs, whole: bool, vm: &VirtualMachine) -> Option<PyResult> {
    let call = subject_call(args)?;
    let automaton = compiled.automaton(call.text.is_ascii(), whole)?;
    let search = Search::new(&call.text, &compiled.code, automaton, call.end);
    // Past `endpos`, the engine is asked at `endpos` (RustPython's answer there: docs/fidelity.md).
    if call.pos <= search.end && !automaton.exact && !search.can_match_at(call.pos) {
        return Some(Ok(vm.ctx.none()));
    }
    let spans =
        with_found(|found| search.match_here(call.pos, whole, found).then(|| Spans::of(found, compiled.groups)));
    Some(Ok(match spans {
        Some(spans) => {
            Match::from_spans(spans, &Searched::of(compiled, &args.args[0], call.string, call.pos, call.end), vm)
        }
        None => vm.ctx.none(),
    }))
}

/// Group `group` of `found` as a `str`, or `default` when the group took no part.
fn group_str(text: &Text, found: &Found, group: usize, default: &PyObjectRef, vm: &VirtualMachine) -> PyObjectRef {
    match found.span(group) {
        Some((start, end)) => text.piece(start, end, vm),
        None => default.clone(),
    }
}

/// Every match, from `from` on, as `_sre`'s iteration steps over them: after an empty match the next may not
/// be empty at the same place.
fn each_match(search: &Search, from: usize, mut f: impl FnMut(&Found) -> PyResult<bool>) -> PyResult<()> {
    let mut found = Found::default();
    let (mut at, mut must_advance) = (from, false);
    while at <= search.end && search.next(at, must_advance, &mut found) {
        if !f(&found)? {
            break;
        }
        must_advance = found.end() == found.start();
        at = found.end();
    }
    Ok(())
}

fn findall(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    let call = subject_call(args)?;
    let automaton = compiled.automaton(call.text.is_ascii(), false)?;
    let search = Search::new(&call.text, &compiled.code, automaton, call.end);
    let empty: PyObjectRef = vm.ctx.empty_str.to_owned().into();
    let mut results = Vec::new();
    let text = &call.text;
    // The words a long text yields repeat: each text is made once (`SharedStrs`), a table for each group (a
    // group of timestamps would otherwise fill the table a group of levels keeps alive).
    let bytes = text.slice(0, text.len()).len();
    let mut shared: Vec<SharedStrs> = (0..compiled.groups.max(1)).map(|_| SharedStrs::for_text(bytes)).collect();
    let mut group = |found: &Found, group: usize| match found.span(group) {
        Some((start, end)) => shared[group.saturating_sub(1)]
            .get_or_make(text.slice(start, end).as_bytes(), || text.piece(start, end, vm)),
        None => empty.clone(),
    };
    let result = each_match(&search, call.pos, |found| {
        results.push(match compiled.groups {
            0 => group(found, 0),
            1 => group(found, 1),
            groups => {
                let items = (1..=groups).map(|g| group(found, g)).collect();
                PyTuple::new_ref(items, &vm.ctx).into()
            }
        });
        Ok(true)
    });
    Some(result.map(|()| PyList::from(results).into_ref(&vm.ctx).into()))
}

fn finditer(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    let call = subject_call(args)?;
    compiled.automaton(call.text.is_ascii(), false)?;
    let matches =
        matches::Matches::new(compiled.clone(), args.args[0].clone(), call.string.clone(), call.pos, call.end);
    Some(Ok(matches.into_ref(&vm.ctx).into()))
}

fn split(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    let bound = bind(args, &["string", "maxsplit"], 1)?;
    let text = Text::new(bound[0]?.downcast_ref::<PyStr>()?)?;
    let maxsplit = int_arg(bound[1], 0)?;
    let automaton = compiled.automaton(text.is_ascii(), false)?;
    let search = Search::new(&text, &compiled.code, automaton, text.len());
    let none = vm.ctx.none();
    let (mut parts, mut last, mut splits) = (Vec::new(), 0, 0isize);
    // The pieces between separators are the text's words, which repeat: each made once (`SharedStrs`).
    let mut shared = SharedStrs::for_text(text.slice(0, text.len()).len());
    let result = each_match(&search, 0, |found| {
        if maxsplit != 0 && splits >= maxsplit {
            return Ok(false);
        }
        let (from, to) = (last, found.start());
        parts.push(shared.get_or_make(text.slice(from, to).as_bytes(), || text.piece(from, to, vm)));
        for group in 1..=compiled.groups {
            parts.push(group_str(&text, found, group, &none, vm));
        }
        last = found.end();
        splits += 1;
        Ok(true)
    });
    Some(result.map(|()| {
        parts.push(text.piece(last, text.len(), vm));
        PyList::from(parts).into_ref(&vm.ctx).into()
    }))
}

/// What `sub` puts in place of each match.
enum Replacement {
    Text(String),
    Template(Rc<Vec<Piece>>),
    Callable(PyObjectRef),
}

/// `repl` read as CPython's `sub` reads it: a callable is called with each match; a string with a backslash
/// is a template (`re._parser.parse_template`, which also raises its errors); another is used as it is.
fn replacement(
    compiled: &Compiled,
    pattern: &PyObjectRef,
    repl: &PyObjectRef,
    vm: &VirtualMachine,
) -> Option<PyResult<Replacement>> {
    // CPython asks "callable?" first: a callable `str` subclass is called.
    if repl.is_callable() {
        return Some(Ok(Replacement::Callable(repl.clone())));
    }
    let text = repl.downcast_ref::<PyStr>()?;
    let plain = text.to_str()?;
    if !plain.contains('\\') {
        return Some(Ok(Replacement::Text(plain.to_owned())));
    }
    if let Some((cached, pieces)) = &*compiled.template.borrow() {
        if cached.as_wtf8() == text.as_wtf8() {
            return Some(Ok(Replacement::Template(pieces.clone())));
        }
    }
    let parsed = (|| -> PyResult<Option<Vec<Piece>>> {
        let items = parse_template(repl, pattern, vm)?;
        let mut pieces = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            if i % 2 == 0 {
                let Some(literal) = item.downcast_ref::<PyStr>().and_then(|s| s.to_str()) else { return Ok(None) };
                pieces.push(Piece::Text(literal.to_owned()));
            } else {
                pieces.push(Piece::Group(item.try_to_value(vm)?));
            }
        }
        Ok(Some(pieces))
    })();
    Some(match parsed {
        Err(error) => Err(error),
        Ok(None) => return None,
        Ok(Some(pieces)) => {
            let pieces = Rc::new(pieces);
            let owned: PyStrRef = PyStrRef::try_from_object(vm, repl.clone()).ok()?;
            // The template it replaces is dropped once the cell is no longer borrowed (a str subclass's
            // `__del__` may call `sub` again).
            let replaced = compiled.template.replace(Some((owned, pieces.clone())));
            drop(replaced);
            Ok(Replacement::Template(pieces))
        }
    })
}

fn substitute(compiled: &Compiled, args: &FuncArgs, vm: &VirtualMachine, with_count: bool) -> Option<PyResult> {
    let bound = bind(args, &["repl", "string", "count"], 2)?;
    let (repl, string) = (bound[0]?, bound[1]?);
    let text = Text::new(string.downcast_ref::<PyStr>()?)?;
    let count = int_arg(bound[2], 0)?;
    if count < 0 {
        return None;
    }
    let automaton = compiled.automaton(text.is_ascii(), false)?;
    let pattern = &args.args[0];
    let replacement = match replacement(compiled, pattern, repl, vm)? {
        Ok(replacement) => replacement,
        Err(error) => return Some(Err(error)),
    };
    let search = Search::new(&text, &compiled.code, automaton, text.len());
    let searched = Searched::of(compiled, pattern, string, 0, text.len());
    let mut out = String::with_capacity(text.slice(0, text.len()).len());
    // A callable's results are only known to be strings when joined: they are kept as objects.
    let mut objects: Vec<PyObjectRef> = Vec::new();
    let (mut last, mut done) = (0, 0usize);
    let result = each_match(&search, 0, |found| {
        if count != 0 && done >= count as usize {
            return Ok(false);
        }
        let (start, end) = (found.start(), found.end());
        out.push_str(text.slice(last, start));
        match &replacement {
            Replacement::Text(with) => out.push_str(with),
            Replacement::Template(pieces) => {
                for piece in pieces.iter() {
                    match piece {
                        Piece::Text(literal) => out.push_str(literal),
                        Piece::Group(group) => {
                            if let Some((a, b)) = found.span(*group) {
                                out.push_str(text.slice(a, b));
                            }
                        }
                    }
                }
            }
            Replacement::Callable(callable) => {
                // Only a text that is not empty, as CPython (a callable's bad result is named by its index).
                if !out.is_empty() {
                    objects.push(vm.ctx.new_str(std::mem::take(&mut out)).into());
                }
                let item = callable.call((Match::from_found(found, &searched, vm),), vm)?;
                // CPython leaves out a `None` result (an empty replacement).
                if !vm.is_none(&item) {
                    objects.push(item);
                }
            }
        }
        last = end;
        done += 1;
        Ok(true)
    });
    Some(result.and_then(|()| {
        out.push_str(text.slice(last, text.len()));
        let joined: PyObjectRef = if let Replacement::Callable(_) = replacement {
            if !out.is_empty() {
                objects.push(vm.ctx.new_str(out).into());
            }
            let list: PyObjectRef = PyList::from(objects).into_ref(&vm.ctx).into();
            vm.call_method(vm.ctx.empty_str.as_object(), "join", (list,))?
        } else {
            vm.ctx.new_str(out).into()
        };
        Ok(if with_count { (joined, done).to_pyobject(vm) } else { joined })
    }))
}

fn sub(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    substitute(compiled, args, vm, false)
}

fn subn(compiled: &Rc<Compiled>, args: &FuncArgs, vm: &VirtualMachine) -> Option<PyResult> {
    substitute(compiled, args, vm, true)
}
