//! Equal strs cut from one long text made once: the words of a context repeat (a 10 MB log: 1.36 million words,
//! 67,020 distinct). Making each one again costs two blocks and their cache misses per word, and every later
//! dict or set lookup of a word compares its text with the key's, where one object per word is found by
//! identity and hashed once. Equal strs that are one object are CPython's own practice too (its
//! one-character strs, interned names); only identity (`is`, `id()`) tells, and which equal strs are one
//! object is not something CPython promises either. Used by
//! `str.split` (`ascii`), `re.findall` and `re.split` (`library::re`).

use std::collections::HashMap;

use rustpython_vm::PyObjectRef;

/// Texts at least this long share their repeated pieces; a line split per call does not pay for a table.
pub const SHARE_FROM: usize = 4096;
/// Distinct pieces remembered at most (~24 bytes each while the call runs).
const SHARE_MAX: usize = 1 << 16;
/// After this many pieces, sharing stops unless a quarter of them were repeats (a list of unique tokens pays
/// for its table no longer).
const SHARE_PROBE: usize = 4096;

/// The pieces made so far from one text, by their bytes.
pub struct SharedStrs<'t> {
    seen: Option<HashMap<&'t [u8], PyObjectRef, foldhash::fast::RandomState>>,
    asked: usize,
    repeats: usize,
}

impl<'t> SharedStrs<'t> {
    /// For the pieces of a text of `len` bytes: shared only when it is long.
    pub fn for_text(len: usize) -> Self {
        Self { seen: (len >= SHARE_FROM).then(HashMap::default), asked: 0, repeats: 0 }
    }

    /// The str for `piece`: the one made before for the same bytes, or `make()`'s.
    pub fn get_or_make(&mut self, piece: &'t [u8], make: impl FnOnce() -> PyObjectRef) -> PyObjectRef {
        self.asked += 1;
        if self.asked == SHARE_PROBE && self.repeats * 4 < SHARE_PROBE {
            self.seen = None;
        }
        let Some(seen) = &mut self.seen else { return make() };
        if let Some(same) = seen.get(piece) {
            self.repeats += 1;
            return same.clone();
        }
        let made = make();
        if seen.len() < SHARE_MAX {
            seen.insert(piece, made.clone());
        }
        made
    }
}
