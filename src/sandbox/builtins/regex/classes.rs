//! The character sets of `_sre`'s opcodes as automaton classes, exactly: each set here is the set of characters
//! for which the engine's own predicate (`rustpython_sre_engine`'s `charset`, `category`, `lower_unicode`...)
//! answers true, built from the same Unicode tables (`rustpython_unicode`), so a class never disagrees with the
//! engine that checks the match afterwards.
//!
//! The Unicode tables (the characters `\w`, `\d`, `\s` take, and the characters whose simple case mapping
//! changes them) are read once per process, in one walk over every code point (~30 ms); the zygote walks them
//! in its first idle second ([`warm`]), so a session forked after it finds them built.

use std::sync::OnceLock;

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
use rustpython_sre_engine::SreCatCode;

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
        use rustpython_unicode::{case, classify};
        let (mut word, mut digit, mut space) = (Runs::default(), Runs::default(), Runs::default());
        let (mut lowered, mut uppered) = (Vec::new(), Vec::new());
        // One walk over every code point (surrogates left out: the automaton reads UTF-8, and a `str` holding a
        // lone surrogate never reaches it, `super::scan`). The engine's `is_uni_word`, `is_uni_digit`,
        // `is_uni_space`, with their ASCII fast paths, and its `lower_unicode`/`upper_unicode`.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let (is_word, is_digit, is_space) = match u8::try_from(c).ok().filter(u8::is_ascii) {
                Some(b) => (b == b'_' || b.is_ascii_alphanumeric(), b.is_ascii_digit(), matches!(b, 0x09..=0x0D | 0x1C..=0x20)),
                None => (classify::is_alnum(c), classify::is_decimal(c), classify::is_space(c)),
            };
            if is_word {
                word.push(c);
            }
            if is_digit {
                digit.push(c);
            }
            if is_space {
                space.push(c);
            }
            let lower = case::simple_lowercase(c);
            if lower != c {
                lowered.push((c, lower));
            }
            let upper = case::simple_uppercase(c);
            if upper != c {
                uppered.push((c, upper));
            }
        }
        Tables { uni_word: word.class(), uni_digit: digit.class(), uni_space: space.class(), lowered, uppered }
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

/// The characters whose simple lowercase (`lower_unicode`) is in `set`: `*_UNI_IGNORE` opcodes.
pub fn unicode_ignore(set: &ClassUnicode) -> ClassUnicode {
    preimage(set, &tables().lowered)
}

/// `RANGE_UNI_IGNORE lo hi` inside a set: the character, or its simple uppercase, in `lo..=hi`.
pub fn range_uni_ignore(lo: u32, hi: u32) -> ClassUnicode {
    let mut class = range(lo, hi);
    let by_upper = ClassUnicode::new(
        tables()
            .uppered
            .iter()
            .filter(|&&(_, up)| (lo..=hi).contains(&(up as u32)))
            .map(|&(c, _)| ClassUnicodeRange::new(c, c)),
    );
    class.union(&by_upper);
    class
}

/// A `CATEGORY` code's characters, or `None` for the locale ones (the automaton does not take those).
pub fn category(code: SreCatCode) -> Option<ClassUnicode> {
    use SreCatCode as C;
    let ascii_space = |b: u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
    let ascii_word = |b: u8| b == b'_' || b.is_ascii_alphanumeric();
    let uni_linebreak = || {
        ClassUnicode::new(
            [0x0A..=0x0D, 0x1C..=0x1E, 0x85..=0x85, 0x2028..=0x2029]
                .into_iter()
                .map(|r| ClassUnicodeRange::new(char::from_u32(*r.start()).unwrap(), char::from_u32(*r.end()).unwrap())),
        )
    };
    Some(match code {
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
