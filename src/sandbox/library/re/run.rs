//! A search for a run of one class of ASCII characters (`\s+`, `\w+`, `\d{2,}`, `[,;]+`, `-{3,5}`): what
//! models split and tokenise text with. Such a pattern's matches are short and many (`re.split(r'\s+')` over a
//! 10 MB log: 1.36 million), and `meta::Regex::search` pays per match for its set-up and for two scans, forward to
//! the match's end and back to its start, a large share of that `re.split`. Here one table lookup per byte
//! finds the run and its end.
//!
//! The result is the same match. Leftmost-first: the leftmost match starts at the first member byte whose run
//! is long enough (`min`); a greedy repeat takes the run up to `max`, a lazy one `min` bytes. A run shorter than
//! `min` holds no match at any of its bytes, so the search goes on after it. The class holds ASCII bytes only,
//! so on a UTF-8 subject no byte of a wider character is ever a member, and every match ends on a character
//! boundary.
//!
//! A word boundary before or after the repeat (`\b\w+\b`, `\b[a-z]+`, what word counts are written with) is
//! read the same way where the class holds word characters only and the repeat is greedy and unbounded: no
//! boundary falls inside a run then, so a run matches whole, where the byte before it (or after it) is not a
//! word character, or not at all. Only an ASCII subject's boundary is read so (`translate`).

use regex_automata::{Input, Match};
use regex_syntax::hir::{Class, Hir, HirKind, Literal, Look};

pub struct Run {
    member: [bool; 256],
    min: usize,
    max: Option<usize>,
    greedy: bool,
    /// A word boundary before the run (`\b\w+`), after it (`\w+\b`).
    boundary_before: bool,
    boundary_after: bool,
}

/// The members of a class or a one-byte literal, as a table by byte, where every one is ASCII (the shortcuts'
/// classes: `Run`'s repeated one, `Fixed`'s each).
pub(super) fn ascii_members(hir: &Hir) -> Option<[bool; 256]> {
    let mut members = [false; 256];
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => {
            for range in class.ranges() {
                range.end().is_ascii().then_some(())?;
                members[range.start() as usize..=range.end() as usize].fill(true);
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            for range in class.ranges() {
                range.end().is_ascii().then_some(())?;
                members[range.start() as usize..=range.end() as usize].fill(true);
            }
        }
        HirKind::Literal(Literal(bytes)) if bytes.len() == 1 && bytes[0].is_ascii() => {
            members[bytes[0] as usize] = true
        }
        _ => return None,
    }
    Some(members)
}

/// A word character of an ASCII word boundary (`Look::WordAscii`).
fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

impl Run {
    /// The run search of `hir`, where it is one repeat, of at least one, of an ASCII class (or character),
    /// with a word boundary before or after it where that reads the same (above).
    pub fn of(hir: &Hir) -> Option<Run> {
        let boundary = |part: &Hir| matches!(part.kind(), HirKind::Look(Look::WordAscii));
        let (repeat, before, after) = match hir.kind() {
            HirKind::Concat(parts) => match parts.as_slice() {
                [first, repeat, last] if boundary(first) && boundary(last) => (repeat, true, true),
                [first, repeat] if boundary(first) => (repeat, true, false),
                [repeat, last] if boundary(last) => (repeat, false, true),
                _ => return None,
            },
            _ => (hir, false, false),
        };
        let HirKind::Repetition(repetition) = repeat.kind() else { return None };
        let member = ascii_members(&repetition.sub)?;
        let (min, max) = (repetition.min as usize, repetition.max.map(|max| max as usize));
        if (before || after)
            && !(repetition.greedy && max.is_none() && (0..=255u8).all(|byte| !member[byte as usize] || is_word(byte)))
        {
            return None;
        }
        (min >= 1 && max.is_none_or(|max| max >= min)).then_some(Run {
            member,
            min,
            max,
            greedy: repetition.greedy,
            boundary_before: before,
            boundary_after: after,
        })
    }

    /// The first match in `input` (anchored or not), as `meta::Regex::search` finds it.
    pub fn search(&self, input: &Input<'_>) -> Option<Match> {
        // Boundaries look at the whole haystack, as the automaton's do; runs end at the input's end.
        let whole = input.haystack();
        let word_at = |at: usize| whole.get(at).is_some_and(|&byte| is_word(byte));
        let hay = &whole[..input.end()];
        let anchored = input.get_anchored().is_anchored();
        let mut at = input.start();
        loop {
            let start =
                if anchored { at } else { at + hay.get(at..)?.iter().position(|&byte| self.member[byte as usize])? };
            let run =
                hay.get(start..)?.iter().position(|&byte| !self.member[byte as usize]).unwrap_or(hay.len() - start);
            let bounded = (!self.boundary_before || start.checked_sub(1).is_none_or(|before| !word_at(before)))
                && (!self.boundary_after || !word_at(start + run));
            if run >= self.min && bounded {
                let taken = if self.greedy { self.max.map_or(run, |max| run.min(max)) } else { self.min };
                return Some(Match::must(0, start..start + taken));
            }
            if anchored {
                return None;
            }
            at = start + run;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::library::re::testing::{every_input, parsed};
    use regex_automata::{meta, Anchored};

    #[test]
    fn only_repeats_of_one_ascii_class_have_a_run_search() {
        for pattern in [
            r"(?-u:\s)+",
            r"(?-u:\w)+",
            r"[0-9]{2,}",
            r"[,;]+?",
            r"-{3,5}",
            r"x+",
            r"[a-c]{2}",
            r"(?-u:\b\w+\b)",
            r"(?-u:\b)[a-z]{3,}",
            r"[0-9]+(?-u:\b)",
        ] {
            assert!(Run::of(&parsed(pattern)).is_some(), "{pattern}");
        }
        // Non-ASCII members, may be empty, more than a repeat, a group, a repeat of a sequence.
        for pattern in [r"\s+", r"é+", r"\s*", r"\s+x", r"(\s+)", r"(?:ab)+", r"\d"] {
            assert!(Run::of(&parsed(pattern)).is_none(), "{pattern}");
        }
        // Boundaries: around a class with other than word characters, a bounded or lazy repeat, a Unicode one.
        for pattern in
            [r"(?-u:\b)[a-z ]+(?-u:\b)", r"(?-u:\b)[0-9]{1,3}(?-u:\b)", r"(?-u:\b)[0-9]+?(?-u:\b)", r"\b[0-9]+"]
        {
            assert!(Run::of(&parsed(pattern)).is_none(), "{pattern}");
        }
    }

    #[test]
    fn a_run_search_finds_the_match_the_automaton_finds() {
        let patterns = [
            r"[ \t]+",
            r"(?-u:\w)+",
            r"[0-9]{2,}",
            r"[0-9]{2,3}",
            r"[0-9]{2,3}?",
            r"[,;]+?",
            r"-{3}",
            r"a+",
            r"(?-u:\b\w+\b)",
            r"(?-u:\b)[0-9]+(?-u:\b)",
            r"(?-u:\b)[a-z]{2,}",
            r"[0-9]+(?-u:\b)",
        ];
        let subjects = [
            "",
            "a b\t\tc  d",
            "1 12 123 1234 12345",
            "x,;y;;,z",
            "-- --- ----a",
            "é 12 ü345 aé",
            "aaa",
            "\t",
            "ab1 12 a_b 3x x3 _9_ 45, ok.",
            "abc123 456def 789",
        ];
        for pattern in patterns {
            let hir = parsed(pattern);
            let run = Run::of(&hir).unwrap_or_else(|| panic!("{pattern} has a run search"));
            let regex = meta::Builder::new().build_from_hir(&hir).unwrap();
            for input in every_input(&subjects) {
                for anchored in [Anchored::No, Anchored::Yes] {
                    let input = input.clone().anchored(anchored);
                    assert_eq!(run.search(&input), regex.search(&input), "{pattern} in {input:?}");
                }
            }
        }
    }
}
