//! A pattern's program and the automata built from it, kept per pattern object for the session (the registry),
//! within a budget of memory for all of them.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use regex_automata::util::captures::Captures;
use regex_automata::{meta, MatchKind};
use rustpython_vm::builtins::{PyDictRef, PyStrRef, PyWeak};
use rustpython_vm::{AsObject, PyObject, PyRef, PyResult, VirtualMachine};

use super::template::Piece;
use super::translate::{self, Subject};
use super::{fixed, lead, run};

/// Bounds on one pattern's automaton (bytes). The automaton lives in the session process, whose memory limit
/// covers it; past these a pattern keeps `_sre`'s own search rather than build a huge one (`(\w{1,99}){1,99}`).
pub(super) const NFA_LIMIT: usize = 1 << 20;
pub(super) const DFA_LIMIT: usize = 1 << 20;
pub(super) const LAZY_DFA_CACHE: usize = 512 << 10;
/// All the automata of a session's live patterns together (`meta::Regex::memory_usage`: a literal-led pattern
/// takes tens of KiB, a big Unicode repeat a few MiB): past it a new pattern keeps `_sre`'s own search (`re`'s
/// cache alone keeps 512 patterns alive). The lazy DFAs' caches, at most `LAZY_DFA_CACHE` each, grow with use
/// and are the session's memory like any other.
pub(super) const AUTOMATA_BUDGET: usize = 64 << 20;

/// The most groups a pattern read exactly may have (`build`): `re.compile('(a)' * 2000)` on 2,000 `a`s takes
/// seconds through captures.
pub(super) const CAPTURED_GROUPS: usize = 32;

/// An automaton, and what it counts against `AUTOMATA_BUDGET`.
pub(crate) struct Automaton {
    pub(super) regex: meta::Regex,
    /// A quicker way to the same first match, for a pattern of a shape that has one.
    pub(super) shortcut: Option<Shortcut>,
    /// Whether its matches, and its captures, are `_sre`'s own (`translate`'s exact reading; none empty).
    pub(super) exact: bool,
    /// Which automaton this is, for a session's whole life (captures are kept for the one that made them).
    pub(super) id: u64,
    pub(super) accounted: usize,
}

/// The searches that find `meta::Regex::search`'s match quicker for some shapes of pattern.
pub(super) enum Shortcut {
    /// Every match begins with one literal, or at a line start (`lead`).
    Lead(lead::Lead),
    /// A repeat of one ASCII class (`run`).
    Run(Box<run::Run>),
    /// A fixed sequence of ASCII characters and classes (`fixed`).
    Fixed(Box<fixed::Fixed>),
}

impl Shortcut {
    fn of(hir: &regex_syntax::hir::Hir) -> Option<Shortcut> {
        run::Run::of(hir)
            .map(|run| Shortcut::Run(Box::new(run)))
            .or_else(|| fixed::Fixed::of(hir).map(|fixed| Shortcut::Fixed(Box::new(fixed))))
            .or_else(|| lead::Lead::of(hir).map(Shortcut::Lead))
    }
}

impl Automaton {
    /// The first match in `input`, as `meta::Regex::search` finds it (by a shortcut where there is one).
    pub(super) fn search(&self, input: &regex_automata::Input<'_>) -> Option<regex_automata::Match> {
        match &self.shortcut {
            Some(Shortcut::Run(run)) => run.search(input),
            Some(Shortcut::Fixed(fixed)) => fixed.search(input),
            Some(Shortcut::Lead(lead)) if !input.get_anchored().is_anchored() => lead.search(&self.regex, input),
            _ => self.regex.search(input),
        }
    }

    /// The first match in `input` with its groups, in `captures`; `false` where there is none.
    pub(super) fn search_captures(&self, input: &regex_automata::Input<'_>, captures: &mut Captures) -> bool {
        if let Some(Shortcut::Fixed(fixed)) = &self.shortcut {
            return fixed.search_captures(input, captures);
        }
        if let Some(Shortcut::Lead(lead)) = &self.shortcut {
            if !input.get_anchored().is_anchored() {
                // Each place the lead names is asked for the match and its groups at once, on the span a match
                // there must end in: one pass, not the automaton's scan and then the groups' (a one-pass
                // pattern led by line starts: `finditer` with named groups).
                let led = lead.find(input, true, |at| {
                    self.regex.search_captures(at, captures);
                    captures.get_match()
                });
                return match led {
                    Ok(found) => found.is_some(),
                    Err(rest) => self.unled_captures(&rest, captures),
                };
            }
        }
        self.unled_captures(input, captures)
    }

    /// The same without a lead: the match first (the DFAs, no capture slots), then its groups on its span alone
    /// (asked for captures over the whole subject, a pattern of many groups whose lazy DFA gives up copies every
    /// slot at every step: `(ab)` 1,000 times over 20 KB takes seconds).
    pub(super) fn unled_captures(&self, input: &regex_automata::Input<'_>, captures: &mut Captures) -> bool {
        let Some(whole) = self.search(input) else {
            captures.set_pattern(None);
            return false;
        };
        self.regex
            .search_captures(&input.clone().span(whole.range()).anchored(regex_automata::Anchored::Yes), captures);
        captures.is_match()
    }
}

impl Drop for Automaton {
    fn drop(&mut self) {
        BUILT.set(BUILT.get().saturating_sub(self.accounted));
    }
}

/// A pattern's program, and its automata, built the first time a subject of each kind needs one.
pub(super) struct Compiled {
    pub(super) code: Vec<u32>,
    pub(super) groups: usize,
    pub(super) ascii: OnceCell<Option<Automaton>>,
    pub(super) unicode: OnceCell<Option<Automaton>>,
    /// The same, ending at the end of the subject (`fullmatch` asks these).
    pub(super) whole_ascii: OnceCell<Option<Automaton>>,
    pub(super) whole_unicode: OnceCell<Option<Automaton>>,
    /// The pattern's `groupindex` (name to number), for `Match` methods given a name (`groups`).
    pub(super) groupindex: Option<PyDictRef>,
    /// The last replacement template `sub` read, and its pieces (a loop calls `sub` with the same one).
    pub(super) template: RefCell<Option<(PyStrRef, Rc<Vec<Piece>>)>>,
}

impl Compiled {
    /// The automaton for `text`'s kind of subject; `whole`: the one whose matches end where the subject does.
    pub(super) fn automaton(&self, ascii: bool, whole: bool) -> Option<&Automaton> {
        let subject = if ascii { Subject::Ascii } else { Subject::Unicode };
        let cell = match (subject, whole) {
            (Subject::Ascii, false) => &self.ascii,
            (Subject::Unicode, false) => &self.unicode,
            (Subject::Ascii, true) => &self.whole_ascii,
            (Subject::Unicode, true) => &self.whole_unicode,
        };
        // The exact reading where there is one (its matches are the engine's own: the engine need not run), the
        // loose one otherwise; whole matches (`fullmatch`) are always the loose reading's, checked by the engine.
        cell.get_or_init(|| {
            (!whole)
                .then(|| build(&self.code, subject, false, true))
                .flatten()
                .or_else(|| build(&self.code, subject, whole, false))
        })
        .as_ref()
    }
}

/// The automaton of `code`; `whole`: of its matches that end where the subject does; `exact`: with `_sre`'s
/// own matches, none of them empty.
pub(super) fn build(code: &[u32], subject: Subject, whole: bool, exact: bool) -> Option<Automaton> {
    if BUILT.get() >= AUTOMATA_BUDGET {
        return None;
    }
    let mut hir = translate::translate(code, subject, exact)?;
    if exact && hir.properties().minimum_len().is_none_or(|least| least == 0) {
        return None;
    }
    // The exact reading reports groups through captures, whose engines copy every group's slots as they go:
    // past `CAPTURED_GROUPS` groups the loose automaton and `_sre` serve the pattern.
    if exact && hir.properties().explicit_captures_len() > CAPTURED_GROUPS {
        return None;
    }
    if whole {
        hir = regex_syntax::hir::Hir::concat(vec![hir, regex_syntax::hir::Hir::look(regex_syntax::hir::Look::End)]);
    }
    let config = meta::Config::new()
        .match_kind(MatchKind::LeftmostFirst)
        .nfa_size_limit(Some(NFA_LIMIT))
        .onepass_size_limit(Some(NFA_LIMIT))
        .dfa_size_limit(Some(DFA_LIMIT))
        .hybrid_cache_capacity(LAZY_DFA_CACHE);
    let regex = meta::Builder::new().configure(config).build_from_hir(&hir).ok()?;
    let accounted = regex.memory_usage();
    if BUILT.get() + accounted > AUTOMATA_BUDGET {
        return None;
    }
    BUILT.set(BUILT.get() + accounted);
    MADE.set(MADE.get() + 1);
    Some(Automaton { regex, shortcut: Shortcut::of(&hir), exact, id: MADE.get(), accounted })
}

/// A pattern object and its program. The pattern's address is the key; the weak reference tells a live
/// pattern from a dead one whose address was reused.
pub(super) struct Registered {
    pattern: PyRef<PyWeak>,
    compiled: Rc<Compiled>,
}

thread_local! {
    /// Bytes of automata built and alive, against `AUTOMATA_BUDGET`.
    static BUILT: Cell<usize> = const { Cell::new(0) };
    /// Automata made so far (`Automaton::id`).
    static MADE: Cell<u64> = const { Cell::new(0) };
    static PATTERNS: RefCell<HashMap<usize, Registered, foldhash::fast::RandomState>> = RefCell::new(HashMap::default());
    /// The table's size after the last sweep of dead patterns: the next sweep waits until it has doubled.
    static SWEPT_AT: Cell<usize> = const { Cell::new(64) };
}

pub(super) fn key(pattern: &PyObject) -> usize {
    pattern as *const PyObject as usize
}

pub(super) fn register(pattern: &PyObject, compiled: Compiled, vm: &VirtualMachine) -> PyResult<()> {
    let weak = pattern.downgrade(None, vm)?;
    // What leaves the table is dropped after the borrow ends: dropping a pattern's program can run Python code
    // (a `__del__` of an object in its `groupindex`), which may compile or search and so use the table.
    let removed = PATTERNS.with_borrow_mut(|patterns| {
        let mut removed: Vec<Registered> = patterns
            .insert(key(pattern), Registered { pattern: weak, compiled: Rc::new(compiled) })
            .into_iter()
            .collect();
        if patterns.len() > 2 * SWEPT_AT.get() {
            let dead: Vec<usize> = patterns
                .iter()
                .filter(|(_, registered)| registered.pattern.upgrade().is_none())
                .map(|(key, _)| *key)
                .collect();
            removed.extend(dead.iter().filter_map(|key| patterns.remove(key)));
            SWEPT_AT.set(patterns.len().max(64));
        }
        removed
    });
    drop(removed);
    Ok(())
}

pub(super) fn compiled(pattern: &PyObject) -> Option<Rc<Compiled>> {
    PATTERNS.with_borrow(|patterns| {
        let registered = patterns.get(&key(pattern))?;
        let alive = registered.pattern.upgrade()?;
        alive.is(pattern).then(|| registered.compiled.clone())
    })
}
