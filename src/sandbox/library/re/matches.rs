//! The iterator `Pattern.finditer` returns where the automaton searches: each `next` is the search on from the
//! last match. CPython's is a `callable_iterator` over a scanner's `search`; this is a type of that name whose
//! `__next__` is the search itself. Made as a callable iterator around a function, it would call the function
//! through the general call path and compare each result with the sentinel at every match, a cost of its own
//! in a `finditer` with named groups over a long log.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rustpython_vm::builtins::PyStr;
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::types::{IterNext, Iterable, SelfIter};
use rustpython_vm::{pyclass, Py, PyObjectRef, PyPayload, PyResult, Traverse, VirtualMachine};

use super::compiled::Compiled;
use super::matched::{Match, Searched, Spans};
use super::scan::{Found, Search, Text};

#[pyclass(module = false, name = "callable_iterator", traverse)]
#[derive(PyPayload)]
pub struct Matches {
    pattern: PyObjectRef,
    string: PyObjectRef,
    #[pytraverse(skip)]
    compiled: Rc<Compiled>,
    #[pytraverse(skip)]
    pos: usize,
    #[pytraverse(skip)]
    end: usize,
    /// Where the next search starts, and whether its match may not be empty there (after an empty match);
    /// `None` once the matches ran out.
    #[pytraverse(skip)]
    cursor: Cell<Option<(usize, bool)>>,
    /// The search's state, kept from match to match.
    #[pytraverse(skip)]
    found: RefCell<Found>,
}

impl std::fmt::Debug for Matches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matches").field("pos", &self.pos).field("end", &self.end).finish_non_exhaustive()
    }
}

impl Matches {
    /// The matches of `compiled` in `string[pos..end]` (`string` a `str` the automaton reads).
    pub fn new(compiled: Rc<Compiled>, pattern: PyObjectRef, string: PyObjectRef, pos: usize, end: usize) -> Self {
        Self { pattern, string, compiled, pos, end, cursor: Cell::new(Some((pos, false))), found: RefCell::default() }
    }
}

#[pyclass(with(IterNext, Iterable), flags(DISALLOW_INSTANTIATION))]
impl Matches {}

impl SelfIter for Matches {}

impl IterNext for Matches {
    fn next(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<PyIterReturn> {
        let Some((at, must_advance)) = zelf.cursor.take() else { return Ok(PyIterReturn::StopIteration(None)) };
        let text = Text::new(zelf.string.downcast_ref::<PyStr>().expect("a str subject")).expect("a UTF-8 subject");
        let compiled = &zelf.compiled;
        let automaton = compiled.automaton(text.is_ascii(), false).expect("built when the iterator was made");
        let search = Search::new(&text, &compiled.code, automaton, zelf.end);
        // The spans are read while the state is borrowed and the `Match` made after it is let go: making an
        // object may run a collection, and a `__del__` it calls may take this iterator's next match.
        let spans = {
            let mut found = zelf.found.borrow_mut();
            if at > search.end || !search.next(at, must_advance, &mut found) {
                return Ok(PyIterReturn::StopIteration(None));
            }
            let (start, stop) = (found.start(), found.end());
            zelf.cursor.set(Some((stop, stop == start)));
            Spans::of(&found, compiled.groups)
        };
        Ok(PyIterReturn::Return(Match::from_spans(
            spans,
            &Searched::of(compiled, &zelf.pattern, &zelf.string, zelf.pos, zelf.end),
            vm,
        )))
    }
}

/// Make the type (the zygote does it once; an iterator can only be made of a type made before).
pub fn install() {
    use rustpython_vm::class::PyClassImpl;
    let _made = Matches::make_static_type();
}
