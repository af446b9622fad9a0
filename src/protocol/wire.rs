//! The binary encoding of messages (`codec` writes and reads every message with these): little-endian
//! integers, length-prefixed byte strings. Reading never trusts a length: it is checked against what is left
//! of the frame before anything is allocated. Writing
//! leaves a large host buffer where it is: the encoded frame refers to it, and it is copied only when sent,
//! starting on a page of the frame, so that a session that maps the frame can keep those pages as the value.

use std::sync::Arc;

use super::channel::{Frame, Mapping};

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the message ends early")]
    Truncated,
    #[error("unknown tag {0}")]
    BadTag(u8),
    #[error("a string is not valid UTF-8")]
    BadUtf8,
    #[error("values are nested too deeply")]
    TooDeep,
    #[error("{0} bytes are left over after the message")]
    Trailing(usize),
    #[error("a field of {0} bytes is over its limit")]
    TooLarge(usize),
    #[error("the message holds more values than a message may")]
    TooManyValues,
    #[error("malformed message: {0}")]
    Malformed(String),
}

pub type WireResult<T> = Result<T, WireError>;

/// Deeper nesting of values than this is refused on either side (it is also how a value that contains itself
/// is caught while converting).
pub const MAX_DEPTH: usize = 256;
/// More values than this in one conversion (or one frame from a session) are refused: shared sub-lists would
/// otherwise be expanded again and again (`a = [a, a]` a hundred times is 2**100 values).
pub const MAX_VALUES: usize = 1_000_000;

/// Host buffers at least this large are referred to, not copied, by an encoded frame.
pub const REFER_FROM: usize = crate::memory::ADOPT_FROM;
/// Referred buffers start on a page boundary of the frame (the session adopts their pages: `memory::adopted`):
/// 4 KiB on x86_64, up to 64 KiB on aarch64 kernels, the most the u16 padding count can say.
fn refer_align() -> usize {
    crate::memory::page_size().min(1 << 16)
}

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
    /// Host buffers that belong at these offsets of `buf`, in order.
    refers: Vec<(usize, HostBuffer)>,
}

/// An encoded frame: its bytes, with large host buffers between them left in place.
#[derive(Clone)]
pub struct Encoded {
    buf: Vec<u8>,
    refers: Vec<(usize, HostBuffer)>,
}

/// The length of a frame made of `buf` and the host buffers it refers to.
fn framed_len(buf: &[u8], refers: &[(usize, HostBuffer)]) -> usize {
    buf.len() + refers.iter().map(|(_, buffer)| buffer.bytes().len()).sum::<usize>()
}

impl Encoded {
    pub fn len(&self) -> usize {
        framed_len(&self.buf, &self.refers)
    }

    /// The frame's pieces, in order.
    pub fn parts(&self) -> Vec<&[u8]> {
        let mut parts = Vec::with_capacity(2 * self.refers.len() + 1);
        let mut from = 0;
        for (at, buffer) in &self.refers {
            parts.push(&self.buf[from..*at]);
            parts.push(buffer.bytes());
            from = *at;
        }
        parts.push(&self.buf[from..]);
        parts
    }

    /// The frame in one buffer (a copy of every host buffer it refers to).
    pub fn contiguous(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.refers.is_empty() {
            return std::borrow::Cow::Borrowed(&self.buf);
        }
        let mut frame = Vec::with_capacity(self.len());
        for part in self.parts() {
            frame.extend_from_slice(part);
        }
        std::borrow::Cow::Owned(frame)
    }

    pub fn into_vec(self) -> Vec<u8> {
        if self.refers.is_empty() {
            return self.buf;
        }
        self.contiguous().into_owned()
    }
}

impl Writer {
    pub fn finish(self) -> Encoded {
        Encoded { buf: self.buf, refers: self.refers }
    }

    /// Where the next byte written will be in the frame.
    fn position(&self) -> usize {
        framed_len(&self.buf, &self.refers)
    }

    /// A host buffer, referred to: padding (a u16 count of zeros), then length-prefixed, its bytes starting
    /// on a page boundary of the frame (`refer_align`). Read with `Reader::padded_bytes`.
    pub fn refer(&mut self, buffer: &HostBuffer) {
        let before_bytes = self.position() + 2 + 8;
        let align = refer_align();
        let pad = (align - before_bytes % align) % align;
        self.buf.extend_from_slice(&(pad as u16).to_le_bytes());
        self.buf.resize(self.buf.len() + pad, 0);
        self.len(buffer.bytes().len());
        self.refers.push((self.buf.len(), buffer.clone()));
    }

    pub fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    pub fn bool(&mut self, value: bool) {
        self.buf.push(value as u8);
    }

    pub fn u32(&mut self, value: u32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn u64(&mut self, value: u64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn i64(&mut self, value: i64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn f64(&mut self, value: f64) {
        self.buf.extend_from_slice(&value.to_bits().to_le_bytes());
    }

    pub fn len(&mut self, len: usize) {
        self.u64(len as u64);
    }

    pub fn bytes(&mut self, value: &[u8]) {
        self.len(value.len());
        self.buf.extend_from_slice(value);
    }

    pub fn str(&mut self, value: &str) {
        self.bytes(value.as_bytes());
    }
}

pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The frame's mapping, when it is one: large values may adopt its pages.
    mapping: Option<&'a Mapping>,
    /// Values this frame may still hold (see `with_value_budget`).
    values_left: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0, mapping: None, values_left: usize::MAX }
    }

    /// A reader that refuses a frame of more than `values` values (a session's frames: each value read costs
    /// the host a few words and a Python object, so a frame of one-byte `None`s would otherwise cost it ~80
    /// bytes per byte received). A collection's claimed length is checked against what is left before
    /// anything is allocated for it.
    pub fn with_value_budget(mut self, values: usize) -> Self {
        self.values_left = values;
        self
    }

    /// One more value read.
    pub fn spend_value(&mut self) -> WireResult<()> {
        self.values_left = self.values_left.checked_sub(1).ok_or(WireError::TooManyValues)?;
        Ok(())
    }

    /// A collection of `n` values follows: refused when the budget cannot hold them.
    pub fn room_for_values(&self, n: usize) -> WireResult<()> {
        if n > self.values_left {
            return Err(WireError::TooManyValues);
        }
        Ok(())
    }

    /// A reader of a received frame, whose large values keep the frame's pages when it is mapped.
    pub fn of_frame(frame: &'a Frame) -> Self {
        let mapping = match frame {
            Frame::Mapped(mapping) => Some(mapping),
            Frame::Inline(_) => None,
        };
        Self { buf: frame, pos: 0, mapping, values_left: usize::MAX }
    }

    pub fn finish(&self) -> WireResult<()> {
        match self.buf.len() - self.pos {
            0 => Ok(()),
            left => Err(WireError::Trailing(left)),
        }
    }

    fn take(&mut self, n: usize) -> WireResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|end| *end <= self.buf.len()).ok_or(WireError::Truncated)?;
        let slice = &self.buf[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    pub fn u8(&mut self) -> WireResult<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn bool(&mut self) -> WireResult<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(WireError::BadTag(other)),
        }
    }

    pub fn u32(&mut self) -> WireResult<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self) -> WireResult<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn i64(&mut self) -> WireResult<i64> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn f64(&mut self) -> WireResult<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count of items that follow, each at least `min_item_bytes` long: never more than the frame holds.
    pub fn count(&mut self, min_item_bytes: usize) -> WireResult<usize> {
        let n = self.u64()?;
        let left = (self.buf.len() - self.pos) as u64;
        if n.saturating_mul(min_item_bytes.max(1) as u64) > left {
            return Err(WireError::Truncated);
        }
        Ok(n as usize)
    }

    pub fn bytes(&mut self) -> WireResult<&'a [u8]> {
        let n = self.count(1)?;
        self.take(n)
    }

    pub fn str(&mut self) -> WireResult<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|_| WireError::BadUtf8)
    }

    /// The bytes written by `Writer::refer`, past their padding.
    fn padded(&mut self) -> WireResult<&'a [u8]> {
        let pad = u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes"));
        self.take(pad as usize)?;
        self.bytes()
    }

    /// `bytes` of this frame as an owned buffer: their pages themselves when the frame is mapped.
    fn owned(&self, bytes: &'a [u8]) -> Vec<u8> {
        self.mapping.and_then(|mapping| mapping.adopt(bytes)).unwrap_or_else(|| bytes.to_vec())
    }

    /// Bytes written by `Writer::refer`, as an owned buffer (see `owned`).
    pub fn padded_bytes(&mut self) -> WireResult<Vec<u8>> {
        let bytes = self.padded()?;
        Ok(self.owned(bytes))
    }
}

/// The buffer of a host object that is immutable while it lives (a CPython str's UTF-8, a bytes' data), held
/// alive by `owner` for as long as any copy of this handle exists.
#[derive(Clone)]
pub struct HostBuffer {
    pub is_str: bool,
    ptr: *const u8,
    len: usize,
    _owner: Arc<dyn Send + Sync>,
}

// SAFETY: the buffer is immutable and outlives every handle (see `new`); `owner` itself is Send + Sync.
unsafe impl Send for HostBuffer {}
// SAFETY: as above: shared access is read-only.
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    /// # Safety
    /// `bytes` must stay valid and unchanged while `owner` lives, and be UTF-8 when `is_str`.
    pub unsafe fn new(is_str: bool, bytes: &[u8], owner: Arc<dyn Send + Sync>) -> Self {
        Self { is_str, ptr: bytes.as_ptr(), len: bytes.len(), _owner: owner }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: valid while `owner` lives (`new`'s contract), and this handle holds it.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl PartialEq for HostBuffer {
    fn eq(&self, other: &Self) -> bool {
        self.is_str == other.is_str && self.bytes() == other.bytes()
    }
}

impl std::fmt::Debug for HostBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostBuffer({} {} bytes)", if self.is_str { "str" } else { "bytes" }, self.len)
    }
}
