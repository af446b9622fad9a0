//! The character sets of `_sre`'s opcodes as automaton classes, exactly: each set here is the set of characters
//! for which the engine's own predicate (`rustpython_sre_engine`'s `charset`, `category`, `lower_unicode`...)
//! answers true, built from the same Unicode tables (`rustpython_unicode`), so a class never disagrees with the
//! engine that checks the match afterwards.
//!
//! The Unicode tables (the characters `\w`, `\d`, `\s` take, and the characters whose simple case mapping
//! changes them) are read once per process from the ICU data's ranges (~1 ms); the zygote reads them before it
//! forks any session ([`warm`]).

use std::sync::OnceLock;

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
use rustpython_sre_engine::SreCatCode;

/// `_sre`'s word character on ASCII (`\w`, ASCII and Unicode alike).
fn ascii_word(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric()
}

/// `_sre`'s Unicode whitespace on ASCII: Python's `str.isspace`, the C0 separators too (`\s` of a `str` pattern).
fn uni_ascii_space(b: u8) -> bool {
    matches!(b, 0x09..=0x0D | 0x1C..=0x20)
}

fn class_where_ascii(f: impl Fn(u8) -> bool) -> ClassUnicode {
    let mut class = ClassUnicode::empty();
    for byte in 0..0x80u8 {
        if f(byte) {
            class.push(ClassUnicodeRange::new(byte as char, byte as char));
        }
    }
    class
}

struct Tables {
    uni_word: ClassUnicode,
    uni_digit: ClassUnicode,
    uni_space: ClassUnicode,
    /// Every character whose simple lowercase differs from it, with that lowercase; the same for uppercase.
    lowered: Vec<(char, char)>,
    uppered: Vec<(char, char)>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        use icu_properties::props::{BidiClass, ChangesWhenCasemapped, GeneralCategory, GeneralCategoryGroup};
        use icu_properties::{CodePointMapData, CodePointSetData};
        use rustpython_unicode::case;
        // The engine's `is_uni_word`, `is_uni_digit` and `is_uni_space` (`rustpython_unicode::classify`'s
        // `is_alnum`, `is_decimal`, `is_space`: general categories and bidi classes of the same ICU data), read
        // as the data's own ranges, with the engine's ASCII fast paths for the ASCII part. Reading every code
        // point instead takes long enough that the zygote could do it only in an idle second, so the sessions
        // of a busy first minute would each pay it on their first pattern over a non-ASCII subject.
        let categories = CodePointMapData::<GeneralCategory>::new();
        let bidi = CodePointMapData::<BidiClass>::new();
        let of = |ranges: &mut dyn Iterator<Item = std::ops::RangeInclusive<u32>>, ascii: fn(u8) -> bool| {
            let mut class = ClassUnicode::empty();
            for r in ranges {
                class.union(&range(*r.start(), *r.end()));
            }
            class.difference(&range(0, 0x7f));
            class.union(&class_where_ascii(ascii));
            class
        };
        let uni_word = of(
            &mut categories.iter_ranges_for_group(GeneralCategoryGroup::Letter.union(GeneralCategoryGroup::Number)),
            ascii_word,
        );
        let uni_digit =
            of(&mut categories.iter_ranges_for_value(GeneralCategory::DecimalNumber), |b| b.is_ascii_digit());
        let mut spaces = categories.iter_ranges_for_value(GeneralCategory::SpaceSeparator).chain(
            [BidiClass::WhiteSpace, BidiClass::ParagraphSeparator, BidiClass::SegmentSeparator]
                .into_iter()
                .flat_map(|class| bidi.iter_ranges_for_value(class)),
        );
        let uni_space = of(&mut spaces, uni_ascii_space);
        // The engine's `lower_unicode`/`upper_unicode` (simple case mappings): a character either moves is one
        // whose case mapping changes it (`Changes_When_Casemapped`, a superset), so only those are read.
        let (mut lowered, mut uppered) = (Vec::new(), Vec::new());
        for r in CodePointSetData::new::<ChangesWhenCasemapped>().iter_ranges() {
            for c in r.filter_map(char::from_u32) {
                let lower = case::simple_lowercase(c);
                if lower != c {
                    lowered.push((c, lower));
                }
                let upper = case::simple_uppercase(c);
                if upper != c {
                    uppered.push((c, upper));
                }
            }
        }
        Tables { uni_word, uni_digit, uni_space, lowered, uppered }
    })
}

/// Build the tables now (the zygote calls this, so no session pays for them).
pub fn warm() {
    tables();
}

pub fn single(code: u32) -> ClassUnicode {
    match char::from_u32(code) {
        Some(c) => ClassUnicode::new([ClassUnicodeRange::new(c, c)]),
        None => ClassUnicode::empty(),
    }
}

pub fn range(lo: u32, hi: u32) -> ClassUnicode {
    let mut class = ClassUnicode::empty();
    if lo > hi {
        return class;
    }
    // A range may straddle the surrogates (a `str` never reaches the automaton holding one).
    let push = |class: &mut ClassUnicode, lo: u32, hi: u32| {
        if let (Some(a), Some(b)) = (char::from_u32(lo), char::from_u32(hi)) {
            if a <= b {
                class.push(ClassUnicodeRange::new(a, b));
            }
        }
    };
    let hi = hi.min(0x10FFFF);
    if lo <= 0xD7FF {
        push(&mut class, lo, hi.min(0xD7FF));
    }
    if hi >= 0xE000 {
        push(&mut class, lo.max(0xE000), hi);
    }
    class
}

pub fn everything() -> ClassUnicode {
    complement(ClassUnicode::empty())
}

pub fn complement(mut class: ClassUnicode) -> ClassUnicode {
    class.negate();
    class
}

fn contains(class: &ClassUnicode, c: char) -> bool {
    class
        .ranges()
        .binary_search_by(|r| {
            if r.end() < c {
                std::cmp::Ordering::Less
            } else if r.start() > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `{c : mapped(c) ∈ set}` where `changed` lists every character the mapping moves: the ones it leaves alone
/// are in exactly when they are in `set`.
fn preimage(set: &ClassUnicode, changed: &[(char, char)]) -> ClassUnicode {
    let mut moved = ClassUnicode::new(changed.iter().map(|&(c, _)| ClassUnicodeRange::new(c, c)));
    let mut kept = set.clone();
    kept.difference(&moved);
    moved = ClassUnicode::new(
        changed.iter().filter(|&&(_, to)| contains(set, to)).map(|&(c, _)| ClassUnicodeRange::new(c, c)),
    );
    kept.union(&moved);
    kept
}

/// The characters whose ASCII lowercase (`lower_ascii`) is in `set`: `*_IGNORE` opcodes.
pub fn ascii_ignore(set: &ClassUnicode) -> ClassUnicode {
    let changed: Vec<(char, char)> = (b'A'..=b'Z').map(|b| (b as char, b.to_ascii_lowercase() as char)).collect();
    preimage(set, &changed)
}

// `ascii` below: the class is for an ASCII subject's automaton, which keeps only its ASCII characters
// (`translate`). An ASCII character's simple case mappings are its ASCII ones, and its Unicode categories its
// ASCII ones, so such a class is made without the Unicode tables: a session forked before the zygote builds them
// does not walk every code point for its first pattern (`re.findall(r'INC-\d{5}')`).

/// The characters whose simple lowercase (`lower_unicode`) is in `set`: `*_UNI_IGNORE` opcodes.
pub fn unicode_ignore(set: &ClassUnicode, ascii: bool) -> ClassUnicode {
    if ascii {
        return ascii_ignore(set);
    }
    preimage(set, &tables().lowered)
}

/// `RANGE_UNI_IGNORE lo hi` inside a set: the character, or its simple uppercase, in `lo..=hi`.
pub fn range_uni_ignore(lo: u32, hi: u32, ascii: bool) -> ClassUnicode {
    let mut class = range(lo, hi);
    let by_upper = if ascii {
        class_where_ascii(|b| b.is_ascii_lowercase() && (lo..=hi).contains(&u32::from(b.to_ascii_uppercase())))
    } else {
        ClassUnicode::new(
            tables()
                .uppered
                .iter()
                .filter(|&&(_, up)| (lo..=hi).contains(&(up as u32)))
                .map(|&(c, _)| ClassUnicodeRange::new(c, c)),
        )
    };
    class.union(&by_upper);
    class
}

/// A `CATEGORY` code's characters, or `None` for the locale ones (the automaton does not take those).
pub fn category(code: SreCatCode, ascii: bool) -> Option<ClassUnicode> {
    use SreCatCode as C;
    let ascii_space = |b: u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
    let uni_linebreak =
        || {
            ClassUnicode::new([0x0A..=0x0D, 0x1C..=0x1E, 0x85..=0x85, 0x2028..=0x2029].into_iter().map(|r| {
                ClassUnicodeRange::new(char::from_u32(*r.start()).unwrap(), char::from_u32(*r.end()).unwrap())
            }))
        };
    Some(match code {
        C::UNI_DIGIT if ascii => class_where_ascii(|b| b.is_ascii_digit()),
        C::UNI_NOT_DIGIT if ascii => complement(class_where_ascii(|b| b.is_ascii_digit())),
        C::UNI_SPACE if ascii => class_where_ascii(uni_ascii_space),
        C::UNI_NOT_SPACE if ascii => complement(class_where_ascii(uni_ascii_space)),
        C::UNI_WORD if ascii => class_where_ascii(ascii_word),
        C::UNI_NOT_WORD if ascii => complement(class_where_ascii(ascii_word)),
        C::DIGIT => class_where_ascii(|b| b.is_ascii_digit()),
        C::NOT_DIGIT => complement(class_where_ascii(|b| b.is_ascii_digit())),
        C::SPACE => class_where_ascii(ascii_space),
        C::NOT_SPACE => complement(class_where_ascii(ascii_space)),
        C::WORD => class_where_ascii(ascii_word),
        C::NOT_WORD => complement(class_where_ascii(ascii_word)),
        C::LINEBREAK => single('\n' as u32),
        C::NOT_LINEBREAK => complement(single('\n' as u32)),
        C::UNI_DIGIT => tables().uni_digit.clone(),
        C::UNI_NOT_DIGIT => complement(tables().uni_digit.clone()),
        C::UNI_SPACE => tables().uni_space.clone(),
        C::UNI_NOT_SPACE => complement(tables().uni_space.clone()),
        C::UNI_WORD => tables().uni_word.clone(),
        C::UNI_NOT_WORD => complement(tables().uni_word.clone()),
        C::UNI_LINEBREAK => uni_linebreak(),
        C::UNI_NOT_LINEBREAK => complement(uni_linebreak()),
        C::LOC_WORD | C::LOC_NOT_WORD => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class built from characters given in increasing order, each run of neighbours one range.
    #[derive(Default)]
    struct Runs {
        ranges: Vec<ClassUnicodeRange>,
        open: Option<(char, char)>,
    }

    impl Runs {
        fn push(&mut self, c: char) {
            self.open = Some(match self.open {
                Some((start, end)) if end as u32 + 1 == c as u32 => (start, c),
                Some((start, end)) => {
                    self.ranges.push(ClassUnicodeRange::new(start, end));
                    (c, c)
                }
                None => (c, c),
            });
        }

        fn class(mut self) -> ClassUnicode {
            if let Some((start, end)) = self.open.take() {
                self.ranges.push(ClassUnicodeRange::new(start, end));
            }
            ClassUnicode::new(self.ranges)
        }
    }

    fn ascii_part(mut class: ClassUnicode) -> ClassUnicode {
        class.intersect(&ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7f')]));
        class
    }

    #[test]
    fn the_tables_are_the_engines_predicates_over_every_code_point() {
        use rustpython_unicode::{case, classify};
        let (mut word, mut digit, mut space) = (Runs::default(), Runs::default(), Runs::default());
        let (mut lowered, mut uppered) = (Vec::new(), Vec::new());
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let (is_word, is_digit, is_space) = match u8::try_from(c).ok().filter(u8::is_ascii) {
                Some(b) => {
                    (b == b'_' || b.is_ascii_alphanumeric(), b.is_ascii_digit(), matches!(b, 0x09..=0x0D | 0x1C..=0x20))
                }
                None => (classify::is_alnum(c), classify::is_decimal(c), classify::is_space(c)),
            };
            for (taken, runs) in [(is_word, &mut word), (is_digit, &mut digit), (is_space, &mut space)] {
                if taken {
                    runs.push(c);
                }
            }
            if case::simple_lowercase(c) != c {
                lowered.push((c, case::simple_lowercase(c)));
            }
            if case::simple_uppercase(c) != c {
                uppered.push((c, case::simple_uppercase(c)));
            }
        }
        let tables = tables();
        assert_eq!(tables.uni_word, word.class());
        assert_eq!(tables.uni_digit, digit.class());
        assert_eq!(tables.uni_space, space.class());
        assert_eq!(tables.lowered, lowered);
        assert_eq!(tables.uppered, uppered);
    }

    #[test]
    fn an_ascii_subjects_classes_are_the_tables_classes_ascii_part() {
        for code in 0..18 {
            let Ok(code) = SreCatCode::try_from(code) else { continue };
            let (quick, full) = (category(code, true), category(code, false));
            assert_eq!(quick.map(ascii_part), full.map(ascii_part), "{code:?}");
        }
        let sets = [
            single('k' as u32),
            single('K' as u32),
            single('s' as u32),
            range(0x41, 0x60),
            range(0x5b, 0x7f),
            single(0x212a),
        ];
        for set in sets {
            assert_eq!(ascii_part(unicode_ignore(&set, true)), ascii_part(unicode_ignore(&set, false)), "{set:?}");
        }
        for (lo, hi) in
            [(0x41, 0x5a), (0x4b, 0x4b), (0x61, 0x7a), (0x53, 0x54), (0x130, 0x131), (0x17f, 0x17f), (0, 0x10ffff)]
        {
            assert_eq!(
                ascii_part(range_uni_ignore(lo, hi, true)),
                ascii_part(range_uni_ignore(lo, hi, false)),
                "{lo:x}..={hi:x}"
            );
        }
    }
}
