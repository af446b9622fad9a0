//! The search itself: the automaton names the next place a match can start, the VM's `_sre` engine
//! (`rustpython_sre_engine`, the same program `re` compiled) tries there, and only there; or, where the
//! automaton is exact (`translate`'s exact reading, no empty match), the automaton's match and its captures are
//! `_sre`'s and the engine does not run. Positions are the engine's (characters); the automaton reads the
//! string's UTF-8 bytes, and the string's own index table converts between the two.

use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};
use rustpython_sre_engine::{Request, State, StrDrive, StringCursor};

use super::compiled::Automaton;
use crate::sandbox::library::str_methods::ascii::new_ascii;
use rustpython_vm::builtins::PyStr;
use rustpython_vm::common::wtf8::Wtf8;
use rustpython_vm::{Py, PyObjectRef, VirtualMachine};

/// A `str` subject the automaton can read: ASCII, or UTF-8 without lone surrogates.
pub struct Text<'a> {
    string: &'a Py<PyStr>,
    bytes: &'a [u8],
    ascii: bool,
}

impl<'a> Text<'a> {
    pub fn new(string: &'a Py<PyStr>) -> Option<Self> {
        // `to_str` is `None` for a string holding a lone surrogate, which UTF-8 cannot spell.
        let bytes = string.to_str()?.as_bytes();
        Some(Self { string, bytes, ascii: string.char_len() == bytes.len() })
    }

    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    /// The length in characters.
    pub fn len(&self) -> usize {
        if self.ascii {
            self.bytes.len()
        } else {
            self.string.char_len()
        }
    }

    pub fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            char_index.min(self.bytes.len())
        } else {
            self.string.char_index_to_byte(char_index)
        }
    }

    pub fn char(&self, byte_index: usize) -> usize {
        if self.ascii {
            byte_index
        } else {
            self.string.byte_to_char_index(byte_index)
        }
    }

    /// Characters `start..end` as a new `str`.
    pub fn piece(&self, start: usize, end: usize, vm: &VirtualMachine) -> PyObjectRef {
        let piece = self.slice(start, end);
        if self.ascii {
            new_ascii(piece.as_bytes().to_vec(), vm)
        } else {
            vm.ctx.new_str(piece).into()
        }
    }

    /// Characters `start..end` as UTF-8.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        let (start, end) = (self.byte(start), self.byte(end));
        // SAFETY: `new` checked the bytes are UTF-8, and `byte` answers character boundaries.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[start.min(end)..end]) }
    }
}

/// The engine's view of a subject that is not ASCII: code points, through the string's character-index table (a
/// cursor at any index is O(1), where `&Wtf8`'s own drive walks from the start). An ASCII subject is driven by
/// its bytes (`&[u8]`'s own drive).
#[derive(Clone, Copy)]
struct Utf8Drive<'a>(&'a Py<PyStr>);

impl StrDrive for Utf8Drive<'_> {
    fn count(&self) -> usize {
        self.0.char_len()
    }
    fn create_cursor(&self, n: usize) -> StringCursor {
        // `StringCursor`'s pointer is the engine's own: take a cursor at the start of the suffix beginning
        // at `n` (a reslice), then say which character that is.
        let suffix = &self.0.as_wtf8()[self.0.char_index_to_byte(n)..];
        let mut cursor = <&Wtf8 as StrDrive>::create_cursor(&suffix, 0);
        cursor.position = n;
        cursor
    }
    fn adjust_cursor(&self, cursor: &mut StringCursor, n: usize) {
        *cursor = self.create_cursor(n);
    }
    fn advance(cursor: &mut StringCursor) -> u32 {
        <&Wtf8 as StrDrive>::advance(cursor)
    }
    fn peek(cursor: &StringCursor) -> u32 {
        <&Wtf8 as StrDrive>::peek(cursor)
    }
    fn skip(cursor: &mut StringCursor, n: usize) {
        <&Wtf8 as StrDrive>::skip(cursor, n)
    }
    fn back_advance(cursor: &mut StringCursor) -> u32 {
        <&Wtf8 as StrDrive>::back_advance(cursor)
    }
    fn back_peek(cursor: &StringCursor) -> u32 {
        <&Wtf8 as StrDrive>::back_peek(cursor)
    }
    fn back_skip(cursor: &mut StringCursor, n: usize) {
        <&Wtf8 as StrDrive>::back_skip(cursor, n)
    }
}

/// Candidate starts the engine may refuse in a row before one search hands over to the engine's own search:
/// each refused candidate costs the automaton a scan that can run to the end of the subject, so a loosened
/// automaton (a lookbehind, `\b` on a non-ASCII subject) that keeps naming starts in a long run would be
/// quadratic.
const REJECTIONS_BEFORE_ENGINE: usize = 32;

/// A match a search found, by the engine (its state, marks included) or by an exact automaton (its span and
/// its groups' spans, read from the captures).
#[derive(Default)]
pub struct Found {
    state: State,
    /// The exact automaton's captures, and which automaton made them (`Automaton::id`).
    captures: Option<(u64, Captures)>,
    /// Groups 1.. from the exact automaton, in characters.
    groups: Vec<Option<(usize, usize)>>,
    by_automaton: bool,
    start: usize,
    end: usize,
}

impl Found {
    pub fn start(&self) -> usize {
        self.start
    }

    pub fn end(&self) -> usize {
        self.end
    }

    /// Group `group`'s span (0 is the whole match), `None` when it took no part.
    pub fn span(&self, group: usize) -> Option<(usize, usize)> {
        if group == 0 {
            return Some((self.start, self.end));
        }
        if self.by_automaton {
            return self.groups.get(group - 1).copied().flatten();
        }
        let marks = self.state.marks.raw();
        let (start, end) = (marks.get(2 * group - 2)?, marks.get(2 * group - 1)?);
        (start.is_some() && end.is_some()).then(|| (start.unpack(), end.unpack()))
    }

    /// The last group closed (`lastindex`; -1 for none), or `None` where only the engine can say: a match of
    /// the exact automaton in which more than one group took part (captures hold spans, not the order in
    /// which the groups closed).
    pub fn lastindex(&self) -> Option<isize> {
        if !self.by_automaton {
            return Some(self.state.marks.last_index());
        }
        let mut taking_part = self.groups.iter().enumerate().filter(|(_, span)| span.is_some());
        match (taking_part.next(), taking_part.next()) {
            (None, _) => Some(-1),
            (Some((group, _)), None) => Some(group as isize + 1),
            _ => None,
        }
    }

    fn take_engine_match(&mut self) {
        self.by_automaton = false;
        self.start = self.state.start;
        self.end = self.state.cursor.position;
    }
}

/// `_sre`'s match of `code` starting exactly at `pos` in `text[..end]` (`match_all`: ending at `end`), as
/// RustPython's own `match`/`fullmatch` find it; on `true`, `state` holds it.
pub fn engine_match(text: &Text, code: &[u32], pos: usize, end: usize, match_all: bool, state: &mut State) -> bool {
    fn run<D: StrDrive>(drive: D, pos: usize, end: usize, code: &[u32], match_all: bool, state: &mut State) -> bool {
        // `Request::new` clamps `pos` to `end`, as RustPython's own `match` does.
        let request = Request::new(drive, pos, end, code, match_all);
        state.reset(&request, request.start);
        state.py_match(&request)
    }
    if text.ascii {
        run(text.bytes, pos, end, code, match_all, state)
    } else {
        run(Utf8Drive(text.string), pos, end, code, match_all, state)
    }
}

/// One search over `text[..end]` (`end` in characters, the `endpos` of `re`).
pub struct Search<'a> {
    text: &'a Text<'a>,
    code: &'a [u32],
    automaton: &'a Automaton,
    pub end: usize,
    hay: &'a [u8],
}

impl<'a> Search<'a> {
    pub fn new(text: &'a Text<'a>, code: &'a [u32], automaton: &'a Automaton, end: usize) -> Self {
        let end = end.min(text.len());
        Self { text, code, automaton, end, hay: &text.bytes[..text.byte(end)] }
    }

    /// Whether the automaton can match starting exactly at `at` (at most `end`): when it cannot, neither can
    /// `_sre`.
    pub fn can_match_at(&self, at: usize) -> bool {
        let input = Input::new(self.hay).range(self.text.byte(at)..).anchored(Anchored::Yes);
        self.automaton.regex.is_match(input)
    }

    /// The first place at or after `from` where the automaton can start a match (`_sre` can start one
    /// nowhere before it).
    pub fn candidate(&self, from: usize) -> Option<usize> {
        if from > self.end {
            return None;
        }
        let input = Input::new(self.hay).range(self.text.byte(from)..);
        self.automaton.search(&input).map(|found| self.text.char(found.start()))
    }

    /// The first match at or after `from`, as `_sre`'s search would find it (`must_advance`: not an empty
    /// match at `from`, the rule after an empty match).
    pub fn next(&self, from: usize, must_advance: bool, found: &mut Found) -> bool {
        if self.automaton.exact {
            // No match of an exact automaton is empty, so `must_advance` asks nothing of it.
            if from > self.end {
                return false;
            }
            return self.read(Input::new(self.hay).range(self.text.byte(from)..), found);
        }
        let matched = if self.text.ascii {
            self.next_by(self.text.bytes, from, must_advance, &mut found.state)
        } else {
            self.next_by(Utf8Drive(self.text.string), from, must_advance, &mut found.state)
        };
        found.take_engine_match();
        matched
    }

    /// The match starting exactly at `pos`, as `_sre`'s `match` finds it (`match_all`: its `fullmatch`, by the
    /// engine).
    pub fn match_here(&self, pos: usize, match_all: bool, found: &mut Found) -> bool {
        if self.automaton.exact && !match_all && pos <= self.end {
            return self.read(Input::new(self.hay).range(self.text.byte(pos)..).anchored(Anchored::Yes), found);
        }
        let matched = engine_match(self.text, self.code, pos, self.end, match_all, &mut found.state);
        found.take_engine_match();
        matched
    }

    /// The exact automaton's first match in `input`, its groups read from the captures.
    fn read(&self, input: Input<'_>, found: &mut Found) -> bool {
        let regex = &self.automaton.regex;
        if regex.captures_len() == 1 {
            // No group but the match: its span alone (asking for captures too makes `re.findall(r'INC-\d{5}')`
            // markedly slower).
            let Some(whole) = self.automaton.search(&input) else { return false };
            found.by_automaton = true;
            found.groups.clear();
            found.start = self.text.char(whole.start());
            found.end = self.text.char(whole.end());
            return true;
        }
        let owner = self.automaton.id;
        if found.captures.as_ref().is_none_or(|(made_by, _)| *made_by != owner) {
            found.captures = Some((owner, regex.create_captures()));
        }
        let (_, captures) = found.captures.as_mut().expect("made above");
        if !self.automaton.search_captures(&input, captures) {
            return false;
        }
        let Some(whole) = captures.get_match() else { return false };
        found.by_automaton = true;
        found.start = self.text.char(whole.start());
        found.end = self.text.char(whole.end());
        found.groups.clear();
        let text = self.text;
        found.groups.extend(
            (1..captures.group_len())
                .map(|group| captures.get_group(group).map(|span| (text.char(span.start), text.char(span.end)))),
        );
        true
    }

    fn next_by<D: StrDrive>(&self, drive: D, from: usize, must_advance: bool, state: &mut State) -> bool {
        let mut at = from;
        let mut rejected = 0;
        while let Some(start) = self.candidate(at) {
            let mut request = Request::new(drive, start, self.end, self.code, false);
            request.must_advance = must_advance && start == from;
            state.reset(&request, start);
            if state.py_match(&request) {
                return true;
            }
            at = start + 1;
            rejected += 1;
            if rejected == REJECTIONS_BEFORE_ENGINE {
                // The engine's own search from here (`REJECTIONS_BEFORE_ENGINE`); past `from`, so no empty
                // match there is ruled out.
                if at > self.end {
                    return false;
                }
                let request = Request::new(drive, at, self.end, self.code, false);
                state.reset(&request, at);
                return state.search(request);
            }
        }
        false
    }
}
