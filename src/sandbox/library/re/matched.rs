//! `re.Match`, made here. RustPython's `Match` can only be made by its own `Pattern` methods (its type is
//! private to the VM), so a `Match` of its type means finding each match the automaton found a second time,
//! by calling RustPython's `match` at its start: a Python-level call, argument binding and a fresh engine
//! state per match, more than half of a `finditer` over a long log. A `Match` of this type is made straight from
//! the engine state (or the exact automaton's span) the search left.
//!
//! Every `Match` a program sees is of this type (`re.Match` is it): the searches RustPython still runs (a
//! subject that is not a `str`, a program the automaton cannot read) have their `Match` converted, which also
//! gives it CPython's `pos` and `endpos` (RustPython's are the match's own span). For a subject that is not
//! a `str`, the groups' values are still sliced by RustPython's `Match` (bytes from any buffer, as CPython).
//! `Pattern.scanner()` keeps RustPython's own `Match` (docs/fidelity.md).

use rustpython_sre_engine::State;
use rustpython_vm::builtins::{PyDictRef, PyGenericAlias, PyInt, PyStr, PyTuple, PyTupleRef, PyType, PyTypeRef};
use rustpython_vm::common::wtf8::Wtf8Buf;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::protocol::PyMappingMethods;
use rustpython_vm::types::{AsMapping, Representable};
use rustpython_vm::{
    pyclass, AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, Traverse, TryFromObject, VirtualMachine,
};
use std::sync::atomic::{AtomicIsize, AtomicPtr, Ordering};

use super::compiled::Compiled;
use super::scan::{self, Found, Text};
use crate::sandbox::library::str_methods::ascii::new_ascii;

/// `lastindex` not yet known (`Match::last`).
const UNKNOWN: isize = -2;

/// A match's groups' spans and `lastindex`, read from a search's `Found` (no Python object made yet).
pub struct Spans {
    regs: Box<[(isize, isize)]>,
    lastindex: isize,
}

impl Spans {
    pub fn of(found: &Found, groups: usize) -> Self {
        let span = |group: usize| found.span(group).map_or((-1, -1), |(start, end)| (start as isize, end as isize));
        let regs = (0..=groups).map(span).collect();
        let lastindex = if groups == 0 { -1 } else { found.lastindex().unwrap_or(UNKNOWN) };
        Self { regs, lastindex }
    }
}

/// Where a match was searched for: the pattern, the subject and the search's `pos` and `endpos` (clamped into
/// the subject, as CPython reports them).
pub struct Searched<'a> {
    pub pattern: &'a PyObjectRef,
    pub string: &'a PyObjectRef,
    pub groupindex: Option<&'a PyDictRef>,
    pub groups: usize,
    pub pos: usize,
    pub endpos: usize,
}

impl<'a> Searched<'a> {
    /// Where a `Match` of this pattern was searched for (`pos` and `endpos` clamped into the subject).
    pub fn of(
        compiled: &'a Compiled,
        pattern: &'a PyObjectRef,
        string: &'a PyObjectRef,
        pos: usize,
        endpos: usize,
    ) -> Searched<'a> {
        Searched { pattern, string, groupindex: compiled.groupindex.as_ref(), groups: compiled.groups, pos, endpos }
    }
}

#[pyclass(module = "re", name = "Match", traverse)]
#[derive(Debug, PyPayload)]
pub struct Match {
    string: PyObjectRef,
    pattern: PyObjectRef,
    /// RustPython's own `Match`, kept for a subject that is not a `str`: it slices the groups' values.
    engine: Option<PyObjectRef>,
    #[pytraverse(skip)]
    groupindex: Option<PyDictRef>,
    #[pytraverse(skip)]
    pos: usize,
    #[pytraverse(skip)]
    endpos: usize,
    /// The last group closed, -1 for none, or `UNKNOWN` until asked for (`last`).
    #[pytraverse(skip)]
    lastindex: AtomicIsize,
    /// Each group's span (group 0 first), `(-1, -1)` for a group that took no part.
    #[pytraverse(skip)]
    regs: Box<[(isize, isize)]>,
}

impl Match {
    /// The match a search found (`scan::Found`).
    pub fn from_found(found: &Found, searched: &Searched, vm: &VirtualMachine) -> PyObjectRef {
        Self::from_spans(Spans::of(found, searched.groups), searched, vm)
    }

    /// A match from its spans (read from a `Found` that may be reused once they are taken).
    pub fn from_spans(Spans { regs, lastindex }: Spans, searched: &Searched, vm: &VirtualMachine) -> PyObjectRef {
        Self {
            string: searched.string.clone(),
            pattern: searched.pattern.clone(),
            engine: None,
            groupindex: searched.groupindex.cloned(),
            pos: searched.pos,
            endpos: searched.endpos,
            lastindex: AtomicIsize::new(lastindex),
            regs,
        }
        .into_ref(&vm.ctx)
        .into()
    }

    /// The group that closed last, as far as the spans tell: the one ending last; of those, the one starting
    /// last (a later sibling); of those, the outermost (the lowest number).
    fn last_by_spans(&self) -> isize {
        let taking_part = self.regs.iter().enumerate().skip(1).filter(|(_, (start, _))| *start >= 0);
        taking_part
            .max_by(|(a, (a_start, a_end)), (b, (b_start, b_end))| {
                a_end.cmp(b_end).then(a_start.cmp(b_start)).then(b.cmp(a))
            })
            .map_or(-1, |(group, _)| group as isize)
    }

    /// `lastindex` (-1 for none); where the exact automaton found the match and more than one group took
    /// part, the engine is asked once, at the match's start (its match there is the automaton's).
    fn last(&self) -> isize {
        let known = self.lastindex.load(Ordering::Relaxed);
        if known != UNKNOWN {
            return known;
        }
        // The engine asked for a match of exactly the automaton's span (where its own search would stop
        // elsewhere, a lazy counted repeat, it is held to the same match).
        let by_engine = (|| {
            let compiled = super::compiled::compiled(&self.pattern)?;
            let text = Text::new(self.string.downcast_ref::<PyStr>()?)?;
            let mut state = State::default();
            let (start, end) = (usize::try_from(self.regs[0].0).ok()?, usize::try_from(self.regs[0].1).ok()?);
            scan::engine_match(&text, &compiled.code, start, end, true, &mut state).then(|| state.marks.last_index())
        })();
        let last = by_engine.unwrap_or_else(|| self.last_by_spans());
        self.lastindex.store(last, Ordering::Relaxed);
        last
    }

    /// RustPython's own `Match` `found` (anything else is returned as it is) as one of these; `positions`, the
    /// search's `pos` and `endpos` when the caller knows them (RustPython's `Match` reports others).
    pub fn from_engine(
        found: PyObjectRef,
        positions: Option<(usize, usize)>,
        subject: Option<&PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        if !is_engine_match(&found) {
            return Ok(found);
        }
        // The subject the caller gave, where RustPython searched a copy of it (`regex::Pinned`).
        let string = match subject {
            Some(subject) => subject.clone(),
            None => found.get_attr("string", vm)?,
        };
        let pattern = found.get_attr("re", vm)?;
        let regs = found.get_attr("regs", vm)?;
        let regs = regs.downcast_ref::<PyTuple>().map(|regs| regs.as_slice()).unwrap_or_default();
        let regs = regs
            .iter()
            .map(|span| {
                let span = span.downcast_ref::<PyTuple>().map(|span| span.as_slice()).unwrap_or_default();
                match span {
                    [start, end] => Ok((start.try_to_value(vm)?, end.try_to_value(vm)?)),
                    _ => Err(vm.new_type_error("Match.regs did not hold pairs")),
                }
            })
            .collect::<PyResult<Vec<(isize, isize)>>>()?;
        let lastindex = found.get_attr("lastindex", vm)?;
        let lastindex: Option<isize> = if vm.is_none(&lastindex) { None } else { Some(lastindex.try_to_value(vm)?) };
        let groupindex = match super::compiled::compiled(&pattern).and_then(|compiled| compiled.groupindex.clone()) {
            Some(groupindex) => Some(groupindex),
            None => {
                let mapping = pattern.get_attr("groupindex", vm)?;
                Some(PyDictRef::try_from_object(vm, vm.ctx.types.dict_type.as_object().call((mapping,), vm)?)?)
            }
        };
        let (pos, endpos) = match positions {
            Some((pos, endpos)) => {
                let len = match super::arguments::subject_len(&string, vm) {
                    Some(len) => len,
                    None => string.length(vm)?,
                };
                (pos.min(len), endpos.min(len))
            }
            None => (found.get_attr("pos", vm)?.try_to_value(vm)?, found.get_attr("endpos", vm)?.try_to_value(vm)?),
        };
        let engine = (!string.downcastable::<PyStr>()).then(|| found.clone());
        Ok(Self {
            string,
            pattern,
            engine,
            groupindex,
            pos,
            endpos,
            lastindex: AtomicIsize::new(lastindex.unwrap_or(-1)),
            regs: regs.into(),
        }
        .into_ref(&vm.ctx)
        .into())
    }

    /// The number of the group `group` names (a number, or a name of the pattern's), as CPython reads it.
    fn index(&self, group: &PyObject, vm: &VirtualMachine) -> PyResult<usize> {
        let number = if let Some(number) = group.downcast_ref_if_exact::<PyInt>(vm) {
            Some(number.as_bigint().try_into().unwrap_or(isize::MAX))
        } else if let Some(number) = group.try_index_opt(vm) {
            Some(number?.as_bigint().try_into().unwrap_or(isize::MAX))
        } else {
            // CPython looks a name up only in a pattern with named groups (an unhashable one is a TypeError
            // there, "no such group" in a pattern without).
            match &self.groupindex {
                Some(groupindex) if groupindex.__len__() > 0 => {
                    let found = groupindex
                        .get_item_opt(group, vm)
                        .map_err(|error| crate::sandbox::library::dict_keys::as_dict_key(vm, group, error))?;
                    found.and_then(|number| {
                        number.downcast_ref::<PyInt>().map(|number| number.as_bigint().try_into().unwrap_or(-1))
                    })
                }
                _ => None,
            }
        };
        match number {
            Some(number) if number >= 0 && (number as usize) < self.regs.len() => Ok(number as usize),
            _ => Err(vm.new_index_error("no such group")),
        }
    }

    /// Group `group`'s value, `None` when it took no part.
    fn value(&self, group: usize, vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
        let (start, end) = self.regs[group];
        if start < 0 || end < 0 {
            return Ok(None);
        }
        if let Some(engine) = &self.engine {
            return engine.get_item(vm.ctx.new_int(group).as_object(), vm).map(Some);
        }
        let string = self.string.downcast_ref::<PyStr>().expect("a str subject unless `engine` is kept");
        let (start, end) = (start as usize, end as usize);
        // CPython hands back the subject itself for a match of all of it (an exact `str`).
        if start == 0 && end == string.char_len() && self.string.class().is(vm.ctx.types.str_type) {
            return Ok(Some(self.string.clone()));
        }
        let wtf8 = string.as_wtf8();
        // RustPython's engine can leave a group inside a loop with its start after its end (`(?:a((?!b)))+`
        // on 'aab': (2, 1)); its own `Match` gives '' there, and so does this.
        let (from, to) = (string.char_index_to_byte(start.min(end)), string.char_index_to_byte(end));
        if string.char_len() == wtf8.len() {
            return Ok(Some(new_ascii(wtf8.as_bytes()[from..to].to_vec(), vm)));
        }
        Ok(Some(vm.ctx.new_str(&wtf8[from..to]).into()))
    }

    fn value_or(&self, group: usize, default: &PyObjectRef, vm: &VirtualMachine) -> PyResult {
        Ok(self.value(group, vm)?.unwrap_or_else(|| default.clone()))
    }

    fn item(&self, group: &PyObject, vm: &VirtualMachine) -> PyResult {
        let index = self.index(group, vm)?;
        self.value_or(index, &vm.ctx.none(), vm)
    }

    fn span_of(&self, name: &str, args: FuncArgs, vm: &VirtualMachine) -> PyResult<(isize, isize)> {
        Ok(match group_arg(name, args, vm)? {
            Some(group) => self.regs[self.index(&group, vm)?],
            None => self.regs[0],
        })
    }
}

/// The one argument of `groups(default=None)`, `groupdict(default=None)` and `expand(template)`, by position or
/// by `keyword`, checked in CPython's order and words (too many, then a required one missing, then an unknown
/// keyword).
fn one_arg(
    name: &str,
    keyword: &str,
    required: bool,
    args: FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<Option<PyObjectRef>> {
    let FuncArgs { args, kwargs } = args;
    let given = args.len() + kwargs.len();
    if given > 1 {
        let what = if args.is_empty() { "keyword argument" } else { "argument" };
        return Err(vm.new_type_error(format!("{name}() takes at most 1 {what} ({given} given)")));
    }
    let mut value = args.into_iter().next();
    let mut unknown = None;
    for (key, given) in kwargs {
        if key.as_bytes() == keyword.as_bytes() {
            value = Some(given);
        } else {
            unknown = Some(key);
        }
    }
    if required && value.is_none() {
        return Err(vm.new_type_error(format!("{name}() missing required argument '{keyword}' (pos 1)")));
    }
    if let Some(key) = unknown {
        return Err(vm.new_type_error(format!("{name}() got an unexpected keyword argument '{key}'")));
    }
    Ok(value)
}

/// `start`, `end` and `span`'s one positional argument, the group (0 when not given).
fn group_arg(name: &str, args: FuncArgs, vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
    if !args.kwargs.is_empty() {
        return Err(vm.new_type_error(format!("Match.{name}() takes no keyword arguments")));
    }
    if args.args.len() > 1 {
        return Err(vm.new_type_error(format!("{name} expected at most 1 argument, got {}", args.args.len())));
    }
    Ok(args.args.into_iter().next())
}

#[pyclass(with(AsMapping, Representable), flags(DISALLOW_INSTANTIATION))]
impl Match {
    #[pymethod]
    fn group(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        if !args.kwargs.is_empty() {
            return Err(vm.new_type_error("Match.group() takes no keyword arguments"));
        }
        match args.args.as_slice() {
            [] => zelf.value_or(0, &vm.ctx.none(), vm),
            [group] => zelf.item(group, vm),
            groups => {
                let values = groups.iter().map(|group| zelf.item(group, vm)).collect::<PyResult<Vec<_>>>()?;
                Ok(vm.ctx.new_tuple(values).into())
            }
        }
    }

    #[pymethod]
    fn groups(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<PyTupleRef> {
        let default = one_arg("groups", "default", false, args, vm)?.unwrap_or_else(|| vm.ctx.none());
        let values =
            (1..zelf.regs.len()).map(|group| zelf.value_or(group, &default, vm)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new_ref(values, &vm.ctx))
    }

    #[pymethod]
    fn groupdict(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<PyDictRef> {
        let default = one_arg("groupdict", "default", false, args, vm)?.unwrap_or_else(|| vm.ctx.none());
        let dict = vm.ctx.new_dict();
        if let Some(groupindex) = &zelf.groupindex {
            for (name, _) in groupindex.clone() {
                let index = zelf.index(&name, vm)?;
                dict.set_item(&*name, zelf.value_or(index, &default, vm)?, vm)?;
            }
        }
        Ok(dict)
    }

    #[pymethod]
    fn start(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<isize> {
        Ok(zelf.span_of("start", args, vm)?.0)
    }

    #[pymethod]
    fn end(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<isize> {
        Ok(zelf.span_of("end", args, vm)?.1)
    }

    #[pymethod]
    fn span(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<(isize, isize)> {
        zelf.span_of("span", args, vm)
    }

    /// `template` with its group references filled in: `re`'s own parser reads it (and raises its errors),
    /// a group that took no part gives nothing.
    #[pymethod]
    fn expand(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        let template = one_arg("expand", "template", true, args, vm)?.expect("required");
        let items: Vec<PyObjectRef> = super::template::parse_template(&template, &zelf.pattern, vm)?;
        let mut pieces = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            if i % 2 == 0 {
                pieces.push(item);
            } else if let Some(value) = zelf.value(zelf.index(&item, vm)?, vm)? {
                pieces.push(value);
            }
        }
        // Joined as the template's type (CPython: a bytes template on a str subject gives bytes).
        let empty: PyObjectRef = if template.downcastable::<PyStr>() {
            vm.ctx.empty_str.to_owned().into()
        } else {
            vm.ctx.empty_bytes.to_owned().into()
        };
        vm.call_method(&empty, "join", (vm.ctx.new_list(pieces),))
    }

    #[pygetset]
    fn pos(zelf: &Py<Self>) -> usize {
        zelf.pos
    }

    #[pygetset]
    fn endpos(zelf: &Py<Self>) -> usize {
        zelf.endpos
    }

    #[pygetset]
    fn lastindex(zelf: &Py<Self>) -> Option<isize> {
        let last = zelf.last();
        (last >= 0).then_some(last)
    }

    #[pygetset]
    fn lastgroup(zelf: &Py<Self>, vm: &VirtualMachine) -> Option<PyObjectRef> {
        let groupindex = zelf.groupindex.as_ref()?;
        let last = zelf.last();
        if last < 0 {
            return None;
        }
        groupindex.clone().into_iter().find_map(|(name, number)| {
            let number: Option<isize> = number.try_to_value(vm).ok();
            (number == Some(last)).then_some(name)
        })
    }

    #[pygetset]
    fn re(zelf: &Py<Self>) -> PyObjectRef {
        zelf.pattern.clone()
    }

    #[pygetset]
    fn string(zelf: &Py<Self>) -> PyObjectRef {
        zelf.string.clone()
    }

    #[pygetset]
    fn regs(zelf: &Py<Self>, vm: &VirtualMachine) -> PyTupleRef {
        let regs = zelf.regs.iter().map(|&(start, end)| vm.new_tuple((start, end)).into()).collect();
        PyTuple::new_ref(regs, &vm.ctx)
    }

    #[pymethod]
    fn __copy__(zelf: &Py<Self>) -> PyRef<Match> {
        zelf.to_owned()
    }

    #[pymethod]
    fn __deepcopy__(zelf: &Py<Self>, _memo: PyObjectRef) -> PyRef<Match> {
        zelf.to_owned()
    }

    #[pymethod]
    fn __reduce__(_zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult {
        Err(vm.new_type_error("cannot pickle 're.Match' object"))
    }

    #[pyclassmethod]
    fn __class_getitem__(cls: PyTypeRef, args: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyGenericAlias> {
        PyGenericAlias::from_args(cls, args, vm)
    }
}

impl AsMapping for Match {
    fn as_mapping() -> &'static PyMappingMethods {
        static AS_MAPPING: PyMappingMethods = PyMappingMethods {
            subscript: Some(|mapping, group, vm| Match::mapping_downcast(mapping).item(group, vm)),
            ..PyMappingMethods::NOT_IMPLEMENTED
        };
        &AS_MAPPING
    }
}

impl Representable for Match {
    fn repr_wtf8(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<Wtf8Buf> {
        let (start, end) = zelf.regs[0];
        let whole = zelf.value_or(0, &vm.ctx.none(), vm)?.repr(vm)?;
        // CPython's `%.50R`: the match's repr, cut at 50 characters.
        let shown: Wtf8Buf = whole.as_wtf8().code_points().take(50).collect();
        let mut out = Wtf8Buf::from(format!("<re.Match object; span=({start}, {end}), match="));
        out.push_wtf8(&shown);
        out.push_char('>');
        Ok(out)
    }
}

/// RustPython's own `Match` type (set by `install`; null before). Its address only, compared, never read.
static ENGINE_TYPE: AtomicPtr<Py<PyType>> = AtomicPtr::new(std::ptr::null_mut());

/// Whether `found` is RustPython's own `Match`.
fn is_engine_match(found: &PyObject) -> bool {
    std::ptr::eq(found.class() as *const Py<PyType>, ENGINE_TYPE.load(Ordering::Relaxed))
}

/// Make this the `Match` of `_sre` and `re` (the zygote does it once, before `typing` reads `re.Match`).
pub fn install(sre: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
    use rustpython_vm::class::PyClassImpl;
    let engine: PyRef<PyType> = PyRef::try_from_object(vm, sre.get_attr("Match", vm)?)?;
    ENGINE_TYPE.store(PyRef::leak(engine) as *const Py<PyType> as *mut Py<PyType>, Ordering::Relaxed);
    let class = Match::make_static_type();
    sre.set_attr("Match", class.to_owned(), vm)?;
    vm.import("re", 0)?.set_attr("Match", class.to_owned(), vm)?;
    Ok(())
}
