//! A search led by the pattern's literal prefix. Where every match begins with one literal and is short
//! (`INC-\d{5}`, `user=\w{1,20}`), the first match is found by finding the literal (`memchr::memmem`, SIMD)
//! and trying an anchored match there, the next occurrence if it fails. `meta::Regex::search` instead runs its
//! forward automaton from the literal to the match's end and then a reverse automaton back to its start: over
//! 10 MB of log lines, `re.findall(r'INC-\d{5}')` spent a third of its time in those two scans and their set-up
//! (`perf`, 2026-11-28).
//!
//! The result is the same match: every match starts at an occurrence of the literal, so the leftmost match
//! starts at the first occurrence where an anchored match exists, and the anchored search there prefers the
//! same end as the unanchored one (leftmost-first). Each failed try reads at most `SPAN_MAX` bytes past its
//! occurrence (no match is longer, so the automaton is dead by then), which keeps a subject full of near misses
//! linear.

use memchr::memmem::Finder;
use regex_automata::{meta, Anchored, Input, Match};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::Hir;

/// The longest match (bytes) a prefix-led search is used for: its worst case reads this much per occurrence.
const SPAN_MAX: usize = 64;
/// The shortest literal worth it: a one-byte literal occurs everywhere.
const LITERAL_MIN: usize = 2;

pub struct Prefix(Finder<'static>);

impl Prefix {
    /// The prefix search of `hir`'s matches, where every match begins with one literal (of `LITERAL_MIN` bytes
    /// or more) and none is longer than `SPAN_MAX` bytes.
    pub fn of(hir: &Hir) -> Option<Prefix> {
        if hir.properties().maximum_len().is_none_or(|longest| longest > SPAN_MAX) {
            return None;
        }
        let prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
        // A finite sequence: every match begins with one of its literals (inexact ones too: they are prefixes),
        // so with what they all begin with (`ab(?:c|d)`: `ab`).
        let common = prefixes.longest_common_prefix()?;
        (common.len() >= LITERAL_MIN).then(|| Prefix(Finder::new(common).into_owned()))
    }

    /// `regex`'s first match in `input` (unanchored), as `regex.search` finds it.
    pub fn search(&self, regex: &meta::Regex, input: &Input<'_>) -> Option<Match> {
        let (haystack, end) = (input.haystack(), input.end());
        let mut at = input.start();
        while at < end {
            let found = at + self.0.find(&haystack[at..end])?;
            if let Some(matched) = regex.search(&input.clone().span(found..end).anchored(Anchored::Yes)) {
                return Some(matched);
            }
            at = found + 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(pattern: &str) -> Hir {
        regex_syntax::ParserBuilder::new().build().parse(pattern).unwrap()
    }

    #[test]
    fn only_short_patterns_led_by_one_literal_have_a_prefix_search() {
        for pattern in [r"INC-\d{5}", r"user=\w{1,10}", r"\bab\w{0,3}", r"(?m)^ERR [A-Z]{3}", r"ab(?:c|d)"] {
            assert!(Prefix::of(&parsed(pattern)).is_some(), "{pattern}");
        }
        // No literal, one byte, unbounded, too long, alternative literals (case-insensitive ones among them).
        for pattern in [r"\d{4}-\d{2}", r"a\d", r"user=\w+", r"INC-\d{80}", r"ab|cd", r"(?i)inc-\d"] {
            assert!(Prefix::of(&parsed(pattern)).is_none(), "{pattern}");
        }
    }

    #[test]
    fn a_prefix_search_finds_the_match_an_unanchored_search_finds() {
        let patterns = [r"INC-\d{5}", r"aab\d", r"ab(?:c|cd)", r"ab(?:cd|c)", r"\bab\w{0,3}", r"(?m)^ab\d?", r"aa(?:a|b){1,3}?", r"é\w{1,2}"];
        let subjects = [
            "", "INC-1234 INC-12345 xINC-000001", "aaab1 aab2 aab", "abcd abc ab", "xab abab ab_", "ab\nab1\n ab2",
            "aaaaab aab", "café éa ébcd", "INC-INC-INC-12345",
        ];
        for pattern in patterns {
            let hir = parsed(pattern);
            let prefix = Prefix::of(&hir).unwrap_or_else(|| panic!("{pattern} has a prefix search"));
            let regex = meta::Builder::new().build_from_hir(&hir).unwrap();
            for subject in subjects {
                for start in 0..=subject.len() {
                    for end in start..=subject.len() {
                        let input = Input::new(subject).range(start..end);
                        assert_eq!(prefix.search(&regex, &input), regex.search(&input), "{pattern} in {subject:?}[{start}..{end}]");
                    }
                }
            }
        }
    }
}
