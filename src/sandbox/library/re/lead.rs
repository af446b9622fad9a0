//! A search led by where every match must begin: one literal (`INC-\d{5}`, `user=\w{1,20}`), found by
//! `memchr::memmem` (SIMD), or the start of a line (`(?m)^(?P<ts>\S+) (?P<level>[A-Z]+)`), found by `memchr`;
//! an anchored match is tried at each such place in turn. `meta::Regex::search` instead runs its forward
//! automaton to the match's end and then a reverse automaton back to its start: over a long log, those two
//! scans and their set-up are a large share of `re.findall(r'INC-\d{5}')` and of `finditer` of a pattern
//! anchored at line starts.
//!
//! The result is the same match: every match starts at such a place, so the leftmost match starts at the
//! first one where an anchored match exists, and the anchored search there prefers the same end as the
//! unanchored one (leftmost-first). Each failed try must stay short, or a subject full of near misses would be
//! quadratic: after a literal, no match is longer than `SPAN_MAX` bytes, so the automaton is dead by then; after
//! a line start, no part of the pattern reads a newline, so a try ends within its own line, and each line is
//! tried once. A literal a match may run long after (`ERROR.*`, `user=(\w+)`), or a line start before a pattern
//! that reads newlines, is tried at its first occurrence only, and the search goes on without the lead if there
//! is no match there (`Lead::find`).

use memchr::memmem::Finder;
use regex_automata::{meta, Anchored, Input, Match};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, Hir, HirKind, Literal, Look};

/// The longest match (bytes) of a literal-led search that tries each occurrence: its worst case reads this much
/// per occurrence.
const SPAN_MAX: usize = 64;
/// The shortest literal worth it: a one-byte literal occurs everywhere.
const LITERAL_MIN: usize = 2;

pub enum Lead {
    /// Every match begins with this literal; `short`: none is longer than `SPAN_MAX` bytes.
    Literal { literal: Box<Finder<'static>>, short: bool },
    /// Every match begins at the start of a line (`(?m)^`); `in_line`: no part of the pattern reads a newline.
    LineStart { in_line: bool },
}

impl Lead {
    /// The led search of `hir`'s matches, where every match begins with one literal (of `LITERAL_MIN` bytes or
    /// more), or every match begins at a line start.
    pub fn of(hir: &Hir) -> Option<Lead> {
        if hir.properties().look_set_prefix().contains(Look::StartLF) {
            return Some(Lead::LineStart { in_line: !reads_newline(hir) });
        }
        let prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
        // A finite sequence: every match begins with one of its literals (inexact ones too: they are prefixes),
        // so with what they all begin with (`ab(?:c|d)`: `ab`).
        let common = prefixes.longest_common_prefix()?;
        let short = hir.properties().maximum_len().is_some_and(|longest| longest <= SPAN_MAX);
        (common.len() >= LITERAL_MIN)
            .then(|| Lead::Literal { literal: Box::new(Finder::new(common).into_owned()), short })
    }

    /// The first place at or after `at` (up to `end`) where a match can begin, where a match there ends by (no
    /// match is longer, or crosses a newline), and where to look on from if there is none there (`None`: the
    /// lead cannot say).
    fn next(&self, haystack: &[u8], at: usize, end: usize) -> Option<(usize, usize, Option<usize>)> {
        match self {
            Lead::Literal { literal, short } => {
                let start = at + literal.find(&haystack[at..end])?;
                if *short {
                    Some((start, (start + SPAN_MAX).min(end), Some(start + 1)))
                } else {
                    Some((start, end, None))
                }
            }
            Lead::LineStart { in_line } => {
                let start = if at == 0 || haystack[at - 1] == b'\n' {
                    at
                } else {
                    at + memchr::memchr(b'\n', &haystack[at..end])? + 1
                };
                if !*in_line {
                    return Some((start, end, None));
                }
                let stop = memchr::memchr(b'\n', &haystack[start..end]).map_or(end, |newline| start + newline);
                Some((start, stop, Some(stop + 1)))
            }
        }
    }

    /// The first of `try_at`'s answers, asked at each place in `input` (unanchored) where a match can begin, in
    /// order, with the input anchored there (`cut`: and cut where a match there must end); or, where the lead
    /// cannot say where to look on (`Err`), the rest of the input, for a search without the lead.
    ///
    /// A literal that a match may run long after (`INC-\d+`, `ERROR.*`), or a line start before a pattern that
    /// reads newlines (`(?m)^(\S+)\s+(\w+)`), is tried at its first occurrence only: a match there is the leftmost
    /// (no match starts earlier), and without one the search goes on without the lead, so a subject full of
    /// occurrences with no match at them costs no more than that search (each try could read to the end of the
    /// subject). The gain is the reverse scan a match found this way does not need (without the lead, `ERROR.*`
    /// scans each line back to its start).
    ///
    /// Cut, a search for groups can take the bounded backtracker where a pattern is not one-pass; the automaton's
    /// own search dies by itself where a match must end, and is slower on a cut input (`re.findall(r'INC-\d{5}')`
    /// over a long log).
    pub fn find<'h, T>(
        &self,
        input: &Input<'h>,
        cut: bool,
        mut try_at: impl FnMut(&Input<'h>) -> Option<T>,
    ) -> Result<Option<T>, Input<'h>> {
        let (haystack, end) = (input.haystack(), input.end());
        let mut at = input.start();
        while at <= end {
            let Some((start, stop, resume)) = self.next(haystack, at, end) else { return Ok(None) };
            if let Some(found) =
                try_at(&input.clone().span(start..if cut { stop } else { end }).anchored(Anchored::Yes))
            {
                return Ok(Some(found));
            }
            match resume {
                Some(resume) => at = resume,
                None => return Err(input.clone().span(start + 1..end)),
            }
        }
        Ok(None)
    }

    /// `regex`'s first match in `input` (unanchored), as `regex.search` finds it.
    pub fn search(&self, regex: &meta::Regex, input: &Input<'_>) -> Option<Match> {
        self.find(input, false, |at| regex.search(at)).unwrap_or_else(|rest| regex.search(&rest))
    }
}

/// Whether some part of `hir` reads a newline.
fn reads_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(Literal(bytes)) => bytes.contains(&b'\n'),
        HirKind::Class(Class::Unicode(class)) => {
            class.ranges().iter().any(|range| range.start() <= '\n' && '\n' <= range.end())
        }
        HirKind::Class(Class::Bytes(class)) => {
            class.ranges().iter().any(|range| range.start() <= b'\n' && b'\n' <= range.end())
        }
        HirKind::Repetition(repetition) => reads_newline(&repetition.sub),
        HirKind::Capture(capture) => reads_newline(&capture.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts.iter().any(reads_newline),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::library::re::testing::{every_input, parsed};
    use regex_automata::util::captures::Captures;

    #[test]
    fn only_patterns_led_by_one_literal_or_a_line_start_have_a_led_search() {
        for pattern in [r"INC-\d{5}", r"user=\w{1,10}", r"\bab\w{0,3}", r"ab(?:c|d)"] {
            assert!(matches!(Lead::of(&parsed(pattern)), Some(Lead::Literal { short: true, .. })), "{pattern}");
        }
        for pattern in [r"user=\w+", r"INC-\d{80}", r"ERROR.*", r"ab(?:c|d+)"] {
            assert!(matches!(Lead::of(&parsed(pattern)), Some(Lead::Literal { short: false, .. })), "{pattern}");
        }
        for pattern in
            [r"(?m)^ERR [A-Z]{3}", r"(?m)^(?P<ts>\S+) (?P<level>[A-Z]+)", r"(?m)^(?:a+|b.*c)", r"(?m)(?:^x|^y)"]
        {
            assert!(matches!(Lead::of(&parsed(pattern)), Some(Lead::LineStart { in_line: true })), "{pattern}");
        }
        for pattern in [r"(?m)^\w+\s+\d+", r"(?m)^a[\s\S]*b", r"(?m)^(?:a|\n)"] {
            assert!(matches!(Lead::of(&parsed(pattern)), Some(Lead::LineStart { in_line: false })), "{pattern}");
        }
        // No literal, one byte, alternative literals (case-insensitive ones among them), a line start only in some
        // alternatives.
        for pattern in [r"\d{4}-\d{2}", r"a\d", r"ab|cd", r"(?i)inc-\d", r"(?m)^a|b"] {
            assert!(Lead::of(&parsed(pattern)).is_none(), "{pattern}");
        }
    }

    #[test]
    fn a_led_search_finds_the_match_an_unanchored_search_finds() {
        let patterns = [
            r"INC-\d{5}",
            r"aab\d",
            r"ab(?:c|cd)",
            r"ab(?:cd|c)",
            r"\bab\w{0,3}",
            r"(?m)^ab\d?",
            r"aa(?:a|b){1,3}?",
            r"é\w{1,2}",
            r"(?m)^a[b ]*",
            r"(?m)^(?:ab|a)(\d)?",
            r"(?m)^$",
            r"(?m)^[^\n]*?b",
            r"(?m)(?:^x|^ab)",
            r"(?m)^(a+)(b)? (\w*)",
            r"ab(\d)(\d{1,3})?-(x)?",
            r"(?m)^(?:(a)|(ab))b?\b",
            r"ab\w*",
            r"ab(\d+)?-",
            r"INC-\d+",
            r"ab.*b",
            r"aa(?:a*c|a)",
            r"(?m)^(a)\s+(b)",
            r"(?m)^a[\s\S]*?b",
            r"(?m)^(?:ab\n|a)(\w)?",
            r"(?m)^\s*$",
        ];
        let subjects = [
            "",
            "INC-1234 INC-12345 xINC-000001",
            "aaab1 aab2 aab",
            "abcd abc ab",
            "xab abab ab_",
            "ab\nab1\n ab2",
            "aaaaab aab",
            "café éa ébcd",
            "INC-INC-INC-12345",
            "\n\nab\na b b\nx\n",
            "ab a\n\nzab\nab2b\n",
            "ab12-x ab1234-ab5-x\naab b",
        ];
        for pattern in patterns {
            let hir = parsed(pattern);
            let lead = Lead::of(&hir).unwrap_or_else(|| panic!("{pattern} has a led search"));
            let regex = meta::Builder::new().build_from_hir(&hir).unwrap();
            for input in every_input(&subjects) {
                assert_eq!(lead.search(&regex, &input), regex.search(&input), "{pattern} in {input:?}");
                let (mut led, mut unled) = (regex.create_captures(), regex.create_captures());
                let rest = lead.find(&input, true, |at| {
                    regex.search_captures(at, &mut led);
                    led.get_match()
                });
                if let Err(rest) = rest {
                    regex.search_captures(&rest, &mut led);
                }
                regex.search_captures(&input, &mut unled);
                let groups =
                    |captures: &Captures| (0..captures.group_len()).map(|g| captures.get_group(g)).collect::<Vec<_>>();
                assert_eq!(groups(&led), groups(&unled), "{pattern} in {input:?}, captures");
            }
        }
    }
}
