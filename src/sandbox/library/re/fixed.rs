//! A search for a pattern of a fixed number of ASCII characters, each from a class (`INC-\d{5}`,
//! `\d{4}-\d{2}-\d{2}`, `[A-Z]{3}-\d{3}`): the ids and dates models pull out of a context. An anchored
//! `regex-automata` search at each occurrence of the literal `lead` finds spends far more on its set-up and
//! its DFA than on the nine bytes of a match (a large share of `re.findall` over a long log). Here each
//! candidate is checked by a table lookup per byte.
//!
//! The result is the same match. Every match has the pattern's length and one reading (no alternatives, no
//! repeats of varying count), so the leftmost match starts at the first place whose bytes are all members of
//! their classes. Candidates are the occurrences of the pattern's literal prefix (`memmem`) where it has one of
//! `LITERAL_MIN` bytes or more, and otherwise the bytes of the first class. The classes hold ASCII bytes only,
//! so on a UTF-8 subject no byte of a wider character is a member, and a match starts and ends on a character
//! boundary. A pattern is at most `LENGTH_MAX` bytes, so a candidate costs at most that many lookups.
//! A fixed pattern's match has one reading, so each group's span is a fixed offset from the match's start:
//! groups are set from those, as the automaton's anchored search for them costs more than the match itself
//! (`finditer(r'INC-(\d{5})')`).

use memchr::memmem::Finder;
use regex_automata::util::captures::Captures;
use regex_automata::util::primitives::NonMaxUsize;
use regex_automata::{Input, Match, PatternID};
use regex_syntax::hir::{Hir, HirKind, Literal};

use super::run::ascii_members;

/// The longest pattern searched this way: the most lookups a candidate costs.
const LENGTH_MAX: usize = 64;
/// The shortest literal prefix worth finding with `memmem`.
const LITERAL_MIN: usize = 2;

pub struct Fixed {
    /// Each byte's class, as a table of members.
    classes: Vec<[bool; 256]>,
    /// The literal the pattern begins with, where it has one of `LITERAL_MIN` bytes or more.
    prefix: Option<Finder<'static>>,
    /// Each group's number and span, as offsets from a match's start.
    groups: Vec<(usize, usize, usize)>,
}

impl Fixed {
    /// The fixed search of `hir`, where it is a sequence of more than one ASCII character or class, with fixed
    /// repeats of one of them, groups around any part, and at most `LENGTH_MAX` of them in all.
    pub fn of(hir: &Hir) -> Option<Fixed> {
        let (mut classes, mut groups) = (Vec::new(), Vec::new());
        push_classes(hir, &mut classes, &mut groups)?;
        if classes.len() < 2 {
            return None;
        }
        let literal: Vec<u8> = classes
            .iter()
            .map_while(|class| {
                let mut members = (0..=255u8).filter(|&byte| class[byte as usize]);
                match (members.next(), members.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            })
            .collect();
        let prefix = (literal.len() >= LITERAL_MIN).then(|| Finder::new(&literal).into_owned());
        Some(Fixed { classes, prefix, groups })
    }

    /// The first match in `input` with its groups, in `captures` (made for this pattern's automaton); `false`
    /// where there is none.
    pub fn search_captures(&self, input: &Input<'_>, captures: &mut Captures) -> bool {
        let Some(found) = self.search(input) else {
            captures.set_pattern(None);
            return false;
        };
        captures.set_pattern(Some(PatternID::ZERO));
        let spans = std::iter::once((0, 0, self.classes.len())).chain(self.groups.iter().copied());
        for (group, start, end) in spans {
            let Some(slot) = captures.group_info().slot(PatternID::ZERO, group) else { continue };
            if let [opened, closed] = &mut captures.slots_mut()[slot..slot + 2] {
                *opened = NonMaxUsize::new(found.start() + start);
                *closed = NonMaxUsize::new(found.start() + end);
            }
        }
        true
    }

    /// The first match in `input` (anchored or not), as `meta::Regex::search` finds it.
    pub fn search(&self, input: &Input<'_>) -> Option<Match> {
        let hay = &input.haystack()[..input.end()];
        let length = self.classes.len();
        let matches_at = |start: usize| {
            hay.get(start..start + length)
                .is_some_and(|bytes| bytes.iter().zip(&self.classes).all(|(&byte, class)| class[byte as usize]))
        };
        let mut at = input.start();
        if input.get_anchored().is_anchored() {
            return matches_at(at).then(|| Match::must(0, at..at + length));
        }
        let first = &self.classes[0];
        loop {
            let start = match &self.prefix {
                Some(prefix) => at + prefix.find(hay.get(at..)?)?,
                None => at + hay.get(at..)?.iter().position(|&byte| first[byte as usize])?,
            };
            if matches_at(start) {
                return Some(Match::must(0, start..start + length));
            }
            if start + length > hay.len() {
                return None;
            }
            at = start + 1;
        }
    }
}

/// Add the class of each byte `hir` matches to `classes`, and each group's number and span to `groups`; `None`
/// where it is not such a sequence, or too long.
fn push_classes(hir: &Hir, classes: &mut Vec<[bool; 256]>, groups: &mut Vec<(usize, usize, usize)>) -> Option<()> {
    match hir.kind() {
        HirKind::Literal(Literal(bytes)) => {
            for &byte in bytes.iter() {
                let mut class = [false; 256];
                class[byte.is_ascii().then_some(byte)? as usize] = true;
                classes.push(class);
            }
        }
        HirKind::Class(_) => classes.push(ascii_members(hir)?),
        HirKind::Repetition(repetition) if Some(repetition.min) == repetition.max => {
            let class = ascii_members(&repetition.sub)?;
            if classes.len() + repetition.min as usize > LENGTH_MAX {
                return None;
            }
            classes.extend(std::iter::repeat_n(class, repetition.min as usize));
        }
        HirKind::Capture(capture) => {
            let start = classes.len();
            push_classes(&capture.sub, classes, groups)?;
            groups.push((capture.index as usize, start, classes.len()));
        }
        HirKind::Concat(parts) => parts.iter().try_for_each(|part| push_classes(part, classes, groups))?,
        _ => return None,
    }
    (classes.len() <= LENGTH_MAX).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::library::re::testing::{every_input, parsed};
    use regex_automata::{meta, Anchored};

    #[test]
    fn only_sequences_of_ascii_characters_and_classes_have_a_fixed_search() {
        for pattern in [
            r"INC-[0-9]{5}",
            r"[0-9]{4}-[0-9]{2}",
            r"ab",
            r"(a)([b-d]{2})",
            r"(?i)ab",
            r"[A-Z]{3}-(?-u:\d){3}",
            r"x{64}",
        ] {
            assert!(Fixed::of(&parsed(pattern)).is_some(), "{pattern}");
        }
        // One character, a varying repeat, an alternative, a look, non-ASCII members, longer than 64.
        for pattern in [
            r"a",
            r"[0-9]{5}x?",
            r"ab+",
            r"ab|cd",
            r"\bab",
            r"a\d",
            r"é[0-9]",
            r"(?i)k[0-9]",
            r"x{65}",
            r"a.b",
            r"(a)(x)?",
        ] {
            assert!(Fixed::of(&parsed(pattern)).is_none(), "{pattern}");
        }
    }

    #[test]
    fn a_fixed_search_finds_the_match_the_automaton_finds() {
        let patterns = [
            r"INC-[0-9]{5}",
            r"[0-9]{2}-[0-9]{2}",
            r"ab",
            r"aab",
            r"a[ab]b",
            r"(a)([0-9]{2})",
            r"(?i)ab-[0-9]",
            r"[a-c][0-9]",
            r"--",
            r"[ -][0-9]{3}",
            r"((a)[0-9])-",
            r"(INC)-(?P<id>([0-9]{2})[0-9]{3})",
            r"(a)(b)",
        ];
        let subjects = [
            "",
            "INC-1234 INC-12345 xINC-000001",
            "12-3 12-34-56 1-22-333",
            "aab abab aaab",
            "abb aab bab",
            "a12 a1 é12 a123",
            "AB-1 aB-2 ab-x",
            "a1 b2 d3 c",
            "--- -",
            " 123-4567 1",
            "INC-INC-123456",
        ];
        for pattern in patterns {
            let hir = parsed(pattern);
            let fixed = Fixed::of(&hir).unwrap_or_else(|| panic!("{pattern} has a fixed search"));
            let regex = meta::Builder::new().build_from_hir(&hir).unwrap();
            for input in every_input(&subjects) {
                for anchored in [Anchored::No, Anchored::Yes] {
                    let input = input.clone().anchored(anchored);
                    assert_eq!(fixed.search(&input), regex.search(&input), "{pattern} in {input:?}");
                    let (mut fixed_groups, mut groups) = (regex.create_captures(), regex.create_captures());
                    // What an earlier search left in the slots must not show.
                    regex.search_captures(&Input::new("INC-12345 (a)(12) ab-1"), &mut fixed_groups);
                    regex.search_captures(&input, &mut groups);
                    assert_eq!(
                        fixed.search_captures(&input, &mut fixed_groups),
                        groups.is_match(),
                        "{pattern} in {input:?}"
                    );
                    let spans = |captures: &Captures| {
                        (0..captures.group_len()).map(|g| captures.get_group(g)).collect::<Vec<_>>()
                    };
                    assert_eq!(spans(&fixed_groups), spans(&groups), "{pattern} in {input:?}, groups");
                }
            }
        }
    }
}
