//! The plain data that crosses between host and session: None, bool, int of any size, float, str, bytes,
//! list, tuple, dict, set, frozenset, nested; from the host also dates and times, decimals and UUIDs, which
//! the session builds with its own `datetime`, `decimal` and `uuid`. `Keep`/`Kept` let a large str or bytes
//! injected again as the same host object reuse the session's copy instead of crossing again. A large host
//! str or bytes goes into the frame straight from the host object's buffer (`HostBuffer`): it is copied
//! once, into the frame's file.

use super::when::When;
use super::wire::{HostBuffer, Reader, WireError, WireResult, Writer, REFER_FROM};

/// Deeper nesting than this is refused on either side (it is also how a value that contains itself is
/// caught while converting).
pub const MAX_DEPTH: usize = 256;
/// More values than this in one conversion are refused: shared sub-lists would otherwise be expanded again
/// and again (`a = [a, a]` a hundred times is 2**100 values).
pub const MAX_VALUES: usize = 1_000_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// An int outside i64, as signed little-endian bytes.
    BigInt(Vec<u8>),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    Set(Vec<Value>),
    FrozenSet(Vec<Value>),
    /// A `datetime.date`, `time`, `datetime` or `timedelta` (host -> session only).
    When(When),
    /// A `decimal.Decimal`, as its str() (host -> session only).
    Decimal(String),
    /// A `uuid.UUID`, as its 128-bit int (host -> session only).
    Uuid(u128),
    /// A value the session keeps under this key for the next run (host -> session only).
    Keep(u64, Box<Value>),
    /// The value kept under this key by the previous run (host -> session only).
    Kept(u64),
    /// A host str (its UTF-8) or bytes, written from the host object's own buffer (host -> session only; it
    /// reads back as `Str` or `Bytes`).
    Host(HostBuffer),
}

mod tag {
    pub const NONE: u8 = 0;
    pub const FALSE: u8 = 1;
    pub const TRUE: u8 = 2;
    pub const INT: u8 = 3;
    pub const BIG_INT: u8 = 4;
    pub const FLOAT: u8 = 5;
    pub const STR: u8 = 6;
    pub const BYTES: u8 = 7;
    pub const LIST: u8 = 8;
    pub const TUPLE: u8 = 9;
    pub const DICT: u8 = 10;
    pub const SET: u8 = 11;
    pub const FROZEN_SET: u8 = 12;
    pub const KEEP: u8 = 13;
    pub const KEPT: u8 = 14;
    /// A large str or bytes starting on a page of the frame (`Writer::refer`).
    pub const PADDED_STR: u8 = 15;
    pub const PADDED_BYTES: u8 = 16;
    pub const WHEN: u8 = 17;
    pub const DECIMAL: u8 = 18;
    pub const UUID: u8 = 19;
}

/// How much data a value holds, the measure of `max_tool_result_bytes` and of the output counter for a result
/// that is not text: the bytes of its text and binary data, `CONTAINER_DATA` for each collection, and
/// `SCALAR_DATA` for any other value.
pub const SCALAR_DATA: usize = 8;
pub const CONTAINER_DATA: usize = 2;

impl Value {
    /// The data this value holds, its items' included (see `SCALAR_DATA`).
    pub fn data_size(&self) -> usize {
        let own = self.own_data_size();
        match self {
            Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
                own + items.iter().map(Value::data_size).sum::<usize>()
            }
            Value::Dict(pairs) => own + pairs.iter().map(|(k, v)| k.data_size() + v.data_size()).sum::<usize>(),
            Value::Keep(_, value) => value.data_size(),
            _ => own,
        }
    }

    /// The data of this value itself, not counting its items.
    pub fn own_data_size(&self) -> usize {
        match self {
            Value::Str(s) | Value::Decimal(s) => s.len(),
            Value::Bytes(b) | Value::BigInt(b) => b.len(),
            Value::Host(buffer) => buffer.bytes().len(),
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::FrozenSet(_) | Value::Dict(_) => CONTAINER_DATA,
            Value::Keep(..) => 0,
            _ => SCALAR_DATA,
        }
    }

    /// About how many bytes this value takes once made in the session (its str and bytes data, and a few
    /// words per value); cheap: no value is converted.
    pub fn size_hint(&self) -> usize {
        const PER_VALUE: usize = 64;
        PER_VALUE
            + match self {
                Value::Str(s) | Value::Decimal(s) => s.len(),
                Value::Bytes(b) | Value::BigInt(b) => b.len(),
                Value::Host(buffer) => buffer.bytes().len(),
                Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
                    items.iter().map(Value::size_hint).sum()
                }
                Value::Dict(pairs) => pairs.iter().map(|(k, v)| k.size_hint() + v.size_hint()).sum(),
                Value::Keep(_, value) => value.size_hint(),
                _ => 0,
            }
    }

    pub fn write(&self, w: &mut Writer) {
        match self {
            Value::None => w.u8(tag::NONE),
            Value::Bool(false) => w.u8(tag::FALSE),
            Value::Bool(true) => w.u8(tag::TRUE),
            Value::Int(i) => {
                w.u8(tag::INT);
                w.i64(*i);
            }
            Value::BigInt(bytes) => {
                w.u8(tag::BIG_INT);
                w.bytes(bytes);
            }
            Value::Float(f) => {
                w.u8(tag::FLOAT);
                w.f64(*f);
            }
            Value::Str(s) => {
                w.u8(tag::STR);
                w.str(s);
            }
            Value::Bytes(b) => {
                w.u8(tag::BYTES);
                w.bytes(b);
            }
            Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
                w.u8(match self {
                    Value::List(_) => tag::LIST,
                    Value::Tuple(_) => tag::TUPLE,
                    Value::Set(_) => tag::SET,
                    _ => tag::FROZEN_SET,
                });
                w.len(items.len());
                for item in items {
                    item.write(w);
                }
            }
            Value::Dict(items) => {
                w.u8(tag::DICT);
                w.len(items.len());
                for (k, v) in items {
                    k.write(w);
                    v.write(w);
                }
            }
            Value::When(when) => {
                w.u8(tag::WHEN);
                when.write(w);
            }
            Value::Decimal(text) => {
                w.u8(tag::DECIMAL);
                w.str(text);
            }
            Value::Uuid(int) => {
                w.u8(tag::UUID);
                w.bytes(&int.to_le_bytes());
            }
            Value::Keep(key, value) => {
                w.u8(tag::KEEP);
                w.u64(*key);
                value.write(w);
            }
            Value::Kept(key) => {
                w.u8(tag::KEPT);
                w.u64(*key);
            }
            Value::Host(buffer) if buffer.bytes().len() >= REFER_FROM => {
                w.u8(if buffer.is_str { tag::PADDED_STR } else { tag::PADDED_BYTES });
                w.refer(buffer);
            }
            Value::Host(buffer) => {
                w.u8(if buffer.is_str { tag::STR } else { tag::BYTES });
                w.bytes(buffer.bytes());
            }
        }
    }

    pub fn read(r: &mut Reader<'_>) -> WireResult<Value> {
        Self::read_at(r, 0)
    }

    fn read_at(r: &mut Reader<'_>, depth: usize) -> WireResult<Value> {
        if depth > MAX_DEPTH + 1 {
            return Err(WireError::TooDeep);
        }
        r.spend_value()?;
        let items = |r: &mut Reader<'_>| -> WireResult<Vec<Value>> {
            let n = r.count(1)?;
            r.room_for_values(n)?;
            (0..n).map(|_| Self::read_at(r, depth + 1)).collect()
        };
        Ok(match r.u8()? {
            tag::NONE => Value::None,
            tag::FALSE => Value::Bool(false),
            tag::TRUE => Value::Bool(true),
            tag::INT => Value::Int(r.i64()?),
            tag::BIG_INT => Value::BigInt(r.bytes()?.to_vec()),
            tag::FLOAT => Value::Float(r.f64()?),
            tag::STR => Value::Str(r.string()?),
            tag::BYTES => Value::Bytes(r.bytes()?.to_vec()),
            tag::LIST => Value::List(items(r)?),
            tag::TUPLE => Value::Tuple(items(r)?),
            tag::SET => Value::Set(items(r)?),
            tag::FROZEN_SET => Value::FrozenSet(items(r)?),
            tag::DICT => {
                let n = r.count(2)?;
                r.room_for_values(n.saturating_mul(2))?;
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = Self::read_at(r, depth + 1)?;
                    pairs.push((k, Self::read_at(r, depth + 1)?));
                }
                Value::Dict(pairs)
            }
            tag::KEEP => {
                let key = r.u64()?;
                Value::Keep(key, Box::new(Self::read_at(r, depth + 1)?))
            }
            tag::KEPT => Value::Kept(r.u64()?),
            tag::WHEN => Value::When(When::read(r)?),
            tag::DECIMAL => Value::Decimal(r.string()?),
            tag::UUID => Value::Uuid(u128::from_le_bytes(r.bytes()?.try_into().map_err(|_| WireError::Truncated)?)),
            tag::PADDED_STR => Value::Str(r.padded_string()?),
            tag::PADDED_BYTES => Value::Bytes(r.padded_bytes()?),
            other => return Err(WireError::BadTag(other)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use crate::protocol::when::Clock;

    fn round_trip(value: &Value) -> Value {
        let mut w = Writer::default();
        value.write(&mut w);
        let frame = w.finish().into_vec();
        let mut r = Reader::new(&frame);
        let back = Value::read(&mut r).unwrap();
        r.finish().unwrap();
        back
    }

    #[test]
    fn every_kind_round_trips() {
        let value = Value::List(vec![
            Value::None,
            Value::Bool(true),
            Value::Int(-7),
            Value::BigInt(vec![1, 2, 3, 0x80]),
            Value::Float(1.5),
            Value::Str("héllo ✓".into()),
            Value::Bytes(vec![0, 255]),
            Value::Tuple(vec![Value::Int(1)]),
            Value::Dict(vec![(Value::Str("k".into()), Value::Set(vec![Value::Int(2)]))]),
            Value::FrozenSet(vec![]),
            Value::Keep(3, Box::new(Value::Str("x".into()))),
            Value::When(When::Date { year: 2024, month: 2, day: 29 }),
            Value::When(When::DateTime {
                year: 1,
                month: 12,
                day: 31,
                clock: Clock { hour: 23, minute: 59, second: 58, microsecond: 999_999, fold: true, utc_offset_micros: Some(-3_600_000_001) },
            }),
            Value::When(When::Time(Clock { hour: 0, minute: 0, second: 0, microsecond: 0, fold: false, utc_offset_micros: None })),
            Value::When(When::TimeDelta { days: -999_999_999, seconds: 86_399, microseconds: 1 }),
            Value::Decimal("-1.10E+3".into()),
            Value::Uuid(u128::MAX - 5),
            Value::Kept(3),
        ]);
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn a_host_buffer_reads_back_as_its_kind() {
        for size in [10, 1 << 20] {
            let text: Arc<String> = Arc::new("é".repeat(size));
            let bytes: Arc<Vec<u8>> = Arc::new(vec![7; size]);
            // SAFETY: the Arcs own the buffers, unchanged.
            let (s, b) = unsafe {
                (HostBuffer::new(true, text.as_bytes(), text.clone()), HostBuffer::new(false, &bytes, bytes.clone()))
            };
            let value = Value::List(vec![Value::Host(s), Value::Int(1), Value::Host(b)]);
            let expected = Value::List(vec![Value::Str(text.to_string()), Value::Int(1), Value::Bytes(bytes.to_vec())]);
            assert_eq!(round_trip(&value), expected);
        }
    }

    #[test]
    fn large_strs_in_a_mapped_frame_keep_the_frame_pages() {
        use crate::protocol::channel::{Channel, Frame};
        let text: Arc<String> = Arc::new("a".repeat(3 << 20) + "é");
        // SAFETY: the Arc owns the buffer, unchanged.
        let host = unsafe { HostBuffer::new(true, text.as_bytes(), text.clone()) };
        let value = Value::List(vec![Value::Int(1), Value::Host(host.clone()), Value::Host(host)]);
        let mut w = Writer::default();
        value.write(&mut w);
        let (a, b) = Channel::pair().unwrap();
        a.send_out_of_line(&w.finish().parts()).unwrap();
        let (frame, _) = b.recv_trusted(1 << 30).unwrap();
        let Frame::Mapped(_) = &frame else { panic!("sent out of line") };
        let frame_range = frame.as_ptr() as usize..frame.as_ptr() as usize + frame.len();
        let back = Value::read(&mut Reader::of_frame(&frame)).unwrap();
        drop(frame);
        let Value::List(items) = &back else { panic!("{back:?}") };
        for item in &items[1..] {
            let Value::Str(s) = item else { panic!("{item:?}") };
            assert_eq!(s, &*text);
            assert!(frame_range.contains(&(s.as_ptr() as usize)), "adopted in place, not copied");
        }
        assert_eq!(items[0], Value::Int(1));
    }

    #[test]
    fn a_hostile_length_is_refused_before_allocating() {
        let mut w = Writer::default();
        w.u8(tag::LIST);
        w.u64(u64::MAX / 2);
        assert!(matches!(Value::read(&mut Reader::new(&w.buf)), Err(WireError::Truncated)));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut w = Writer::default();
        for _ in 0..10_000 {
            w.u8(tag::LIST);
            w.u64(1);
        }
        w.u8(tag::NONE);
        assert!(matches!(Value::read(&mut Reader::new(&w.buf)), Err(WireError::TooDeep)));
    }

    #[test]
    fn invalid_utf8_is_refused() {
        let mut w = Writer::default();
        w.u8(tag::STR);
        w.bytes(&[0xff, 0xfe]);
        assert!(matches!(Value::read(&mut Reader::new(&w.buf)), Err(WireError::BadUtf8)));
    }
}
