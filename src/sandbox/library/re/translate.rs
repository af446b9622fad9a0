//! A compiled `_sre` program (the code list `re._compiler` hands `_sre.compile`) read back into an automaton's
//! pattern (`regex_syntax::hir::Hir`) whose matches are a superset of the program's: wherever `_sre` can start
//! a match, the automaton can too. The engine then checks each place the automaton names, so a looser
//! pattern costs time, never a result.
//!
//! What is read exactly: literals, sets, categories and case-insensitive forms (through `classes`), `.`,
//! alternation, groups, greedy, lazy and possessive repeats with their bounds, `^`, `\A`, `\Z`, multi-line
//! `^`/`$`. What is loosened: `$` without `re.M` (end, or before the final newline) becomes "before any
//! newline or at the end"; a lookahead or lookbehind becomes "anything here" (it only removes matches);
//! `\b`/`\B` become "anything here" where the subject is not ASCII (the automaton's idea of a word character
//! differs from `_sre`'s outside ASCII) and are exact on an ASCII subject. What is not read at all, so the
//! pattern keeps `_sre`'s own search: backreferences, conditionals (`(?(1)...)`), `re.LOCALE`, bytes patterns.
//!
//! Read `exact`ly, a program whose every part has an exact reading (no loosened `$`, lookaround, `\b` on a
//! non-ASCII subject, atomic group or possessive repeat, and no repeat whose body can match empty, where
//! `_sre` and an automaton stop a loop by different rules) becomes an automaton with `_sre`'s own matches: its
//! repeats keep their greediness, and with leftmost-first matching an automaton prefers, among the matches at
//! the leftmost start, the one a backtracking engine tries first, and its groups (read as captures) the spans
//! `_sre`'s marks hold. For a pattern that cannot match empty, such an automaton replaces `_sre`'s run.
//!
//! A `Hir` is built directly, never printed and parsed again, so no character of the pattern can be read
//! with another meaning.

use std::cell::Cell;

use regex_syntax::hir::{Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition};
use rustpython_sre_engine::{SreAtCode, SreCatCode, SreOpcode};

use super::classes;

/// The subjects an automaton serves: one for ASCII strings (`\b` exact, classes cut to ASCII), one for the rest.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Ascii,
    Unicode,
}

/// `_sre`'s "no upper bound" (`MAXREPEAT` as a code word).
const UNBOUNDED: u32 = u32::MAX;

/// At most this many class ranges in one pattern's automaton: a pattern past it (`\w` written 90,000 times)
/// keeps `_sre`'s search rather than have its reading take more memory than the automaton's own limits allow.
const RANGE_BUDGET: usize = 100_000;

/// The automaton's pattern for `code`: its matches a superset of `_sre`'s, or (`exact`) the same, or `None`.
pub fn translate(code: &[u32], subject: Subject, exact: bool) -> Option<Hir> {
    let (&last, body) = code.split_last()?;
    if last != SreOpcode::SUCCESS as u32 || code.len() > RANGE_BUDGET {
        return None;
    }
    Reader { code, subject, exact, budget: Cell::new(RANGE_BUDGET) }.sequence(0, body.len())
}

struct Reader<'a> {
    code: &'a [u32],
    subject: Subject,
    /// Every part read exactly, or no reading at all.
    exact: bool,
    /// Class ranges still allowed (`RANGE_BUDGET`).
    budget: Cell<usize>,
}

impl Reader<'_> {
    fn word(&self, at: usize) -> Option<u32> {
        self.code.get(at).copied()
    }

    /// Whether the automaton is for an ASCII subject: its classes keep only ASCII characters (`class`).
    fn ascii(&self) -> bool {
        self.subject == Subject::Ascii
    }

    fn opcode(&self, at: usize) -> Option<SreOpcode> {
        SreOpcode::try_from(self.word(at)?).ok()
    }

    /// `code[at..end]`, each operation after the last. Read exactly, a group's `MARK` pair (which `_sre`'s
    /// compiler puts around the group's body, in the same sequence) becomes a capture of that body, so the
    /// automaton reports the group's span.
    fn sequence(&self, mut at: usize, end: usize) -> Option<Hir> {
        let mut parts = Vec::new();
        // The groups opened and not yet closed here: each one's number and the parts before it.
        let mut open: Vec<(u32, Vec<Hir>)> = Vec::new();
        while at < end {
            if self.exact && self.opcode(at)? == SreOpcode::MARK {
                let mark = self.word(at + 1)?;
                let group = mark / 2 + 1;
                if mark % 2 == 0 {
                    open.push((group, std::mem::take(&mut parts)));
                } else {
                    let (opened, before) = open.pop()?;
                    if opened != group {
                        return None;
                    }
                    let body = Hir::concat(std::mem::replace(&mut parts, before));
                    parts.push(Hir::capture(Capture { index: group, name: None, sub: Box::new(body) }));
                }
                at += 2;
                continue;
            }
            let (part, next) = self.operation(at)?;
            if next <= at || next > end {
                return None;
            }
            parts.push(part);
            at = next;
        }
        if !open.is_empty() {
            return None;
        }
        Some(Hir::concat(parts))
    }

    /// The operation at `at` and where the next one starts.
    fn operation(&self, at: usize) -> Option<(Hir, usize)> {
        use SreOpcode as Op;
        let arg = |n: usize| self.word(at + n);
        // The end of a block whose length word follows the opcode (`<op> <skip> ...`).
        let skip_end = || Some(at + 1 + arg(1)? as usize);
        Some(match self.opcode(at)? {
            Op::INFO => (Hir::empty(), skip_end()?),
            Op::MARK => (Hir::empty(), at + 2),
            Op::LITERAL => (self.class(classes::single(arg(1)?))?, at + 2),
            Op::NOT_LITERAL => (self.class(classes::complement(classes::single(arg(1)?)))?, at + 2),
            Op::LITERAL_IGNORE => (self.class(classes::ascii_ignore(&classes::single(arg(1)?)))?, at + 2),
            Op::NOT_LITERAL_IGNORE => {
                let class = classes::ascii_ignore(&classes::single(arg(1)?));
                (self.class(classes::complement(class))?, at + 2)
            }
            Op::LITERAL_UNI_IGNORE => {
                (self.class(classes::unicode_ignore(&classes::single(arg(1)?), self.ascii()))?, at + 2)
            }
            Op::NOT_LITERAL_UNI_IGNORE => {
                let class = classes::unicode_ignore(&classes::single(arg(1)?), self.ascii());
                (self.class(classes::complement(class))?, at + 2)
            }
            Op::ANY => (self.class(classes::complement(classes::single('\n' as u32)))?, at + 1),
            Op::ANY_ALL => (self.class(classes::everything())?, at + 1),
            Op::CATEGORY => {
                (self.class(classes::category(SreCatCode::try_from(arg(1)?).ok()?, self.ascii())?)?, at + 2)
            }
            Op::IN | Op::IN_IGNORE | Op::IN_UNI_IGNORE => {
                let end = skip_end()?;
                let set = self.set(at + 2, end)?;
                let class = match self.opcode(at)? {
                    Op::IN => set,
                    Op::IN_IGNORE => classes::ascii_ignore(&set),
                    _ => classes::unicode_ignore(&set, self.ascii()),
                };
                (self.class(class)?, end)
            }
            Op::AT => (self.at(SreAtCode::try_from(arg(1)?).ok()?)?, at + 2),
            Op::BRANCH => {
                // <BRANCH> (<skip> alternative <JUMP> <to end>)* <FAILURE>
                let mut alternatives = Vec::new();
                let mut next = at + 1;
                loop {
                    let skip = self.word(next)? as usize;
                    if skip == 0 {
                        break;
                    }
                    let jump = next + skip - 2;
                    if skip < 3 || self.opcode(jump)? != Op::JUMP {
                        return None;
                    }
                    alternatives.push(self.sequence(next + 1, jump)?);
                    next += skip;
                }
                (Hir::alternation(alternatives), next + 1)
            }
            Op::POSSESSIVE_REPEAT | Op::POSSESSIVE_REPEAT_ONE | Op::ATOMIC_GROUP if self.exact => return None,
            op @ (Op::REPEAT | Op::POSSESSIVE_REPEAT) => {
                // <REPEAT> <skip> <min> <max> body <MAX_UNTIL | MIN_UNTIL | SUCCESS>
                let end = skip_end()?;
                let until = self.opcode(end)?;
                let expected = match op {
                    Op::REPEAT => matches!(until, Op::MAX_UNTIL | Op::MIN_UNTIL),
                    _ => until == Op::SUCCESS,
                };
                if !expected {
                    return None;
                }
                let greedy = until != Op::MIN_UNTIL;
                (self.repeat(arg(2)?, arg(3)?, greedy, self.sequence(at + 4, end)?)?, end + 1)
            }
            op @ (Op::REPEAT_ONE | Op::MIN_REPEAT_ONE | Op::POSSESSIVE_REPEAT_ONE) => {
                // <REPEAT_ONE> <skip> <min> <max> body <SUCCESS>, the SUCCESS inside the skip
                let end = skip_end()?;
                if self.opcode(end - 1)? != Op::SUCCESS {
                    return None;
                }
                let greedy = op != Op::MIN_REPEAT_ONE;
                (self.repeat(arg(2)?, arg(3)?, greedy, self.sequence(at + 4, end - 1)?)?, end)
            }
            Op::ATOMIC_GROUP => {
                // An atomic group only ever matches what its body can: the body is a superset.
                let end = skip_end()?;
                if self.opcode(end - 1)? != Op::SUCCESS {
                    return None;
                }
                (self.sequence(at + 2, end - 1)?, end)
            }
            // A lookaround only removes matches: "anything here" is a superset.
            Op::ASSERT | Op::ASSERT_NOT if !self.exact => (Hir::empty(), skip_end()?),
            Op::FAILURE => (Hir::fail(), at + 1),
            _ => return None,
        })
    }

    /// A set's items, `code[at..end]` ending in `FAILURE`: the characters `_sre`'s `charset` answers true for.
    fn set(&self, mut at: usize, end: usize) -> Option<ClassUnicode> {
        use SreOpcode as Op;
        let mut class = ClassUnicode::empty();
        let mut negate = false;
        let first = at;
        loop {
            if at >= end {
                return None;
            }
            match self.opcode(at)? {
                Op::FAILURE => break,
                // `charset` flips its answer at NEGATE; the compiler puts it first, and nothing else is read.
                Op::NEGATE if at == first => {
                    negate = true;
                    at += 1;
                }
                Op::LITERAL => {
                    class.union(&classes::single(self.word(at + 1)?));
                    at += 2;
                }
                Op::RANGE => {
                    class.union(&classes::range(self.word(at + 1)?, self.word(at + 2)?));
                    at += 3;
                }
                Op::RANGE_UNI_IGNORE => {
                    class.union(&classes::range_uni_ignore(self.word(at + 1)?, self.word(at + 2)?, self.ascii()));
                    at += 3;
                }
                Op::CATEGORY => {
                    class.union(&classes::category(SreCatCode::try_from(self.word(at + 1)?).ok()?, self.ascii())?);
                    at += 2;
                }
                Op::CHARSET => {
                    // <CHARSET> 8 words: a bitmap of the characters below 256.
                    let bits = self.code.get(at + 1..at + 9)?;
                    class.union(&bitmap_class(bits, 0));
                    at += 9;
                }
                Op::BIGCHARSET => {
                    // <BIGCHARSET> <count> 64 words of block numbers (one byte per 256 characters, in memory
                    // order) <count blocks of 8 words>: the characters below 65,536.
                    let count = self.word(at + 1)? as usize;
                    let indices = self.code.get(at + 2..at + 66)?;
                    let blocks = self.code.get(at + 66..at + 66 + count * 8)?;
                    let indices: Vec<u8> = indices.iter().flat_map(|w| w.to_ne_bytes()).collect();
                    for (high, &block) in indices.iter().enumerate() {
                        let bits = blocks.get(block as usize * 8..block as usize * 8 + 8)?;
                        class.union(&bitmap_class(bits, (high as u32) << 8));
                    }
                    at += 66 + count * 8;
                }
                _ => return None,
            }
        }
        Some(if negate { classes::complement(class) } else { class })
    }

    fn class(&self, class: ClassUnicode) -> Option<Hir> {
        let mut class = class;
        if self.ascii() {
            class.intersect(&ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7f')]));
        }
        self.budget.set(self.budget.get().checked_sub(class.ranges().len().max(1))?);
        Some(Hir::class(Class::Unicode(class)))
    }

    fn at(&self, code: SreAtCode) -> Option<Hir> {
        use SreAtCode as At;
        let ascii = self.ascii();
        Some(match code {
            At::BEGINNING | At::BEGINNING_STRING => Hir::look(Look::Start),
            At::END_STRING => Hir::look(Look::End),
            At::BEGINNING_LINE => Hir::look(Look::StartLF),
            At::END_LINE => Hir::look(Look::EndLF),
            // `$` is the end or before a final newline; "before any newline or at the end" holds it.
            At::END if !self.exact => Hir::look(Look::EndLF),
            At::END => return None,
            At::BOUNDARY | At::UNI_BOUNDARY if ascii => Hir::look(Look::WordAscii),
            At::NON_BOUNDARY | At::UNI_NON_BOUNDARY if ascii => Hir::look(Look::WordAsciiNegate),
            At::BOUNDARY | At::UNI_BOUNDARY | At::NON_BOUNDARY | At::UNI_NON_BOUNDARY if !self.exact => Hir::empty(),
            At::BOUNDARY | At::UNI_BOUNDARY | At::NON_BOUNDARY | At::UNI_NON_BOUNDARY => return None,
            At::LOC_BOUNDARY | At::LOC_NON_BOUNDARY => return None,
        })
    }

    fn repeat(&self, min: u32, max: u32, greedy: bool, body: Hir) -> Option<Hir> {
        let max = (max != UNBOUNDED).then_some(max);
        if !self.exact {
            // Greedy or lazy only orders the engine's tries: the loose automaton asks where a match can start.
            return Some(Hir::repetition(Repetition { min, max, greedy: true, sub: Box::new(body) }));
        }
        // `_sre` ends a loop whose body matched empty by its own rule, an automaton by another.
        if body.properties().minimum_len() == Some(0) {
            return None;
        }
        Some(Hir::repetition(Repetition { min, max, greedy, sub: Box::new(body) }))
    }
}

/// The characters `base..base+256` whose bit is set in 8 words of 32.
fn bitmap_class(bits: &[u32], base: u32) -> ClassUnicode {
    let mut ranges = Vec::new();
    for (word, &value) in bits.iter().enumerate() {
        for bit in 0..32 {
            if value & (1 << bit) != 0 {
                if let Some(c) = char::from_u32(base + word as u32 * 32 + bit) {
                    ranges.push(ClassUnicodeRange::new(c, c));
                }
            }
        }
    }
    ClassUnicode::new(ranges)
}
