//! The plain data that crosses between host and session: None, bool, int of any size, float, str, bytes,
//! list, tuple, dict, set, frozenset, nested; from the host also dates and times, decimals and UUIDs, which
//! the session builds with its own `datetime`, `decimal` and `uuid`. `Keep`/`Kept` let a large str or bytes
//! injected again as the same host object reuse the session's copy instead of crossing again. A large host
//! str or bytes goes into the frame straight from the host object's buffer (`HostBuffer`): it is copied
//! once, into the frame's file.

use serde::de::{self, Deserialize, Deserializer, EnumAccess, SeqAccess, VariantAccess, Visitor};
use serde::ser::{Serialize, SerializeTupleVariant, Serializer};

use super::codec::{ByteBuf, Bytes, Referred, PADDED, VALUE};
use super::when::When;
use super::wire::{HostBuffer, WireError, REFER_FROM};

pub use super::wire::{MAX_DEPTH, MAX_VALUES};

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
    /// A value of numpy's or pandas' (`kind`, e.g. "pandas.DataFrame"), taken apart into `parts` and made again by
    /// the same library at the other end (`library_data`).
    Library(String, Box<Value>),
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
    pub const LIBRARY: u8 = 20;
}

/// How much data a value holds, the measure of `max_tool_result_bytes` and of the output counter for a result
/// that is not text: the bytes of its text and binary data, `CONTAINER_DATA` for each collection, and
/// `SCALAR_DATA` for any other value.
pub const SCALAR_DATA: usize = 8;
pub const CONTAINER_DATA: usize = 2;

/// What a value costs beside its text and binary data (an object's header, the reference to it), in `size_hint`
/// and `host_size`.
pub const PER_VALUE: usize = 64;

/// The most a value's strs (a call's arguments together) may take the host beyond their UTF-8 (`widened`): the
/// host builds a str as CPython holds it, 1, 2 or 4 bytes a character by its widest, so one emoji in a 1 MB str
/// makes it 4 MB there. Past this the value is refused before its strs are built.
pub const MAX_WIDENED: usize = 64 << 20;

/// The bytes CPython holds for the characters of a str given as its UTF-8 (PEP 393: 1, 2 or 4 bytes a character,
/// by the widest). The widest is read from the largest byte, which is a lead byte when any is not ASCII: a lead
/// byte of four bytes (0xF0 and up) is past U+FFFF, of three (0xE0 and up) or of two from 0xC4 (U+0100) past U+00FF.
pub fn str_host_bytes(utf8: &[u8]) -> usize {
    if utf8.is_ascii() {
        return utf8.len();
    }
    let width = match utf8.iter().max() {
        Some(&lead) if lead >= 0xF0 => 4,
        Some(&lead) if lead >= 0xC4 => 2,
        _ => 1,
    };
    width * utf8.iter().filter(|&&byte| (byte & 0xC0) != 0x80).count()
}

/// The bytes a str takes on the host beyond its UTF-8 (none for text whose UTF-8 is as long or longer).
pub fn widened_str(text: &str) -> usize {
    str_host_bytes(text.as_bytes()).saturating_sub(text.len())
}

impl Value {
    /// The data this value holds, its items' included (see `SCALAR_DATA`).
    pub fn data_size(&self) -> usize {
        self.sum_over(&Value::own_data_size)
    }

    /// The data of this value itself, not counting its items.
    pub fn own_data_size(&self) -> usize {
        match self {
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::FrozenSet(_) | Value::Dict(_) => CONTAINER_DATA,
            Value::Keep(..) => 0,
            Value::Library(kind, _) => kind.len(),
            Value::Str(_) | Value::Decimal(_) | Value::Bytes(_) | Value::BigInt(_) | Value::Host(_) => self.own_bytes(),
            _ => SCALAR_DATA,
        }
    }

    /// About how many bytes this value takes once made in the session (its str and bytes data, and a few
    /// words per value); cheap: no value is converted.
    pub fn size_hint(&self) -> usize {
        self.sum_over(&|value: &Value| PER_VALUE + value.own_bytes())
    }

    /// About how many bytes this value takes once built on the host: as `size_hint`, with each str as CPython
    /// holds it (`str_host_bytes`), up to four times its UTF-8.
    pub fn host_size(&self) -> usize {
        self.sum_over(&|value: &Value| PER_VALUE + value.own_host_bytes())
    }

    /// The bytes this value's strs take on the host beyond their UTF-8, its items' included (see `MAX_WIDENED`).
    pub fn widened(&self) -> usize {
        self.sum_over(&|value: &Value| if let Value::Str(text) = value { widened_str(text) } else { 0 })
    }

    /// The bytes of this value's own text or binary data as the host holds them: a str at CPython's width.
    pub fn own_host_bytes(&self) -> usize {
        match self {
            Value::Str(text) => str_host_bytes(text.as_bytes()),
            Value::Host(buffer) if buffer.is_str => str_host_bytes(buffer.bytes()),
            _ => self.own_bytes(),
        }
    }

    /// The bytes of this value's own text or binary data (none for other kinds).
    fn own_bytes(&self) -> usize {
        match self {
            Value::Str(s) | Value::Decimal(s) => s.len(),
            Value::Bytes(b) | Value::BigInt(b) => b.len(),
            Value::Host(buffer) => buffer.bytes().len(),
            _ => 0,
        }
    }

    /// `own` of this value and of every value in it (a kept value's own included).
    fn sum_over(&self, own: &impl Fn(&Value) -> usize) -> usize {
        own(self)
            + match self {
                Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
                    items.iter().map(|item| item.sum_over(own)).sum()
                }
                Value::Dict(pairs) => pairs.iter().map(|(k, v)| k.sum_over(own) + v.sum_over(own)).sum(),
                Value::Keep(_, value) | Value::Library(_, value) => value.sum_over(own),
                _ => 0,
            }
    }
}

/// A value's wire form: one tag (its variant's index, the `tag` numbers), then what the kind holds; a large host
/// buffer is referred to, read back as an owned `Str`/`Bytes` (see `codec`).
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let tagged = |tag: u8| u32::from(tag);
        match self {
            Value::None => s.serialize_unit_variant(VALUE, tagged(tag::NONE), "None"),
            Value::Bool(false) => s.serialize_unit_variant(VALUE, tagged(tag::FALSE), "False"),
            Value::Bool(true) => s.serialize_unit_variant(VALUE, tagged(tag::TRUE), "True"),
            Value::Int(i) => s.serialize_newtype_variant(VALUE, tagged(tag::INT), "Int", i),
            Value::BigInt(bytes) => s.serialize_newtype_variant(VALUE, tagged(tag::BIG_INT), "BigInt", &Bytes(bytes)),
            Value::Float(f) => s.serialize_newtype_variant(VALUE, tagged(tag::FLOAT), "Float", f),
            Value::Str(text) => s.serialize_newtype_variant(VALUE, tagged(tag::STR), "Str", text.as_str()),
            Value::Bytes(bytes) => s.serialize_newtype_variant(VALUE, tagged(tag::BYTES), "Bytes", &Bytes(bytes)),
            Value::List(items) => s.serialize_newtype_variant(VALUE, tagged(tag::LIST), "List", items),
            Value::Tuple(items) => s.serialize_newtype_variant(VALUE, tagged(tag::TUPLE), "Tuple", items),
            Value::Set(items) => s.serialize_newtype_variant(VALUE, tagged(tag::SET), "Set", items),
            Value::FrozenSet(items) => s.serialize_newtype_variant(VALUE, tagged(tag::FROZEN_SET), "FrozenSet", items),
            Value::Dict(pairs) => s.serialize_newtype_variant(VALUE, tagged(tag::DICT), "Dict", pairs),
            Value::When(when) => s.serialize_newtype_variant(VALUE, tagged(tag::WHEN), "When", when),
            Value::Decimal(text) => s.serialize_newtype_variant(VALUE, tagged(tag::DECIMAL), "Decimal", text.as_str()),
            Value::Uuid(int) => {
                s.serialize_newtype_variant(VALUE, tagged(tag::UUID), "Uuid", &Bytes(&int.to_le_bytes()))
            }
            Value::Keep(key, value) => {
                let mut kept = s.serialize_tuple_variant(VALUE, tagged(tag::KEEP), "Keep", 2)?;
                kept.serialize_field(key)?;
                kept.serialize_field(&**value)?;
                kept.end()
            }
            Value::Kept(key) => s.serialize_newtype_variant(VALUE, tagged(tag::KEPT), "Kept", key),
            Value::Library(kind, parts) => {
                let mut library = s.serialize_tuple_variant(VALUE, tagged(tag::LIBRARY), "Library", 2)?;
                library.serialize_field(kind.as_str())?;
                library.serialize_field(&**parts)?;
                library.end()
            }
            Value::Host(buffer) if buffer.bytes().len() >= REFER_FROM => {
                let (tag, name) =
                    if buffer.is_str { (tag::PADDED_STR, "PaddedStr") } else { (tag::PADDED_BYTES, "PaddedBytes") };
                s.serialize_newtype_variant(VALUE, tagged(tag), name, &Referred(buffer))
            }
            Value::Host(buffer) => {
                let (tag, name) = if buffer.is_str { (tag::STR, "Str") } else { (tag::BYTES, "Bytes") };
                s.serialize_newtype_variant(VALUE, tagged(tag), name, &Bytes(buffer.bytes()))
            }
        }
    }
}

/// The variant names, for serde's messages only (the wire has the tags).
const VARIANTS: &[&str] = &[
    "None",
    "False",
    "True",
    "Int",
    "BigInt",
    "Float",
    "Str",
    "Bytes",
    "List",
    "Tuple",
    "Dict",
    "Set",
    "FrozenSet",
    "Keep",
    "Kept",
    "PaddedStr",
    "PaddedBytes",
    "When",
    "Decimal",
    "Uuid",
    "Library",
];

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_enum(VALUE, VARIANTS, ValueVisitor)
    }
}

struct ValueVisitor;

/// Bytes written as a newtype of `codec::PADDED`: a referred buffer, owned (its pages, when they can be).
struct Padded(Vec<u8>);

impl<'de> Deserialize<'de> for Padded {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(PADDED, ByteBuf).map(Padded)
    }
}

/// Bytes as one length-prefixed string.
struct OwnedBytes(Vec<u8>);

impl<'de> Deserialize<'de> for OwnedBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_byte_buf(ByteBuf).map(OwnedBytes)
    }
}

fn utf8<E: de::Error>(bytes: Vec<u8>) -> Result<String, E> {
    String::from_utf8(bytes).map_err(|_| E::custom(WireError::BadUtf8))
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (tag, variant): (u32, _) = data.variant()?;
        let Ok(tag) = u8::try_from(tag) else { return Err(de::Error::custom(format!("unknown tag {tag}"))) };
        Ok(match tag {
            tag::NONE | tag::FALSE | tag::TRUE => {
                variant.unit_variant()?;
                match tag {
                    tag::NONE => Value::None,
                    other => Value::Bool(other == tag::TRUE),
                }
            }
            tag::INT => Value::Int(variant.newtype_variant()?),
            tag::BIG_INT => Value::BigInt(variant.newtype_variant::<OwnedBytes>()?.0),
            tag::FLOAT => Value::Float(variant.newtype_variant()?),
            tag::STR => Value::Str(variant.newtype_variant()?),
            tag::BYTES => Value::Bytes(variant.newtype_variant::<OwnedBytes>()?.0),
            tag::LIST => Value::List(variant.newtype_variant()?),
            tag::TUPLE => Value::Tuple(variant.newtype_variant()?),
            tag::SET => Value::Set(variant.newtype_variant()?),
            tag::FROZEN_SET => Value::FrozenSet(variant.newtype_variant()?),
            tag::DICT => Value::Dict(variant.newtype_variant()?),
            tag::KEEP => variant.tuple_variant(2, KeepVisitor)?,
            tag::KEPT => Value::Kept(variant.newtype_variant()?),
            tag::WHEN => Value::When(variant.newtype_variant()?),
            tag::DECIMAL => Value::Decimal(variant.newtype_variant()?),
            tag::UUID => {
                let bytes = variant.newtype_variant::<OwnedBytes>()?.0;
                let bytes: [u8; 16] = bytes.try_into().map_err(|_| de::Error::custom("a UUID is 16 bytes"))?;
                Value::Uuid(u128::from_le_bytes(bytes))
            }
            tag::PADDED_STR => Value::Str(utf8(variant.newtype_variant::<Padded>()?.0)?),
            tag::PADDED_BYTES => Value::Bytes(variant.newtype_variant::<Padded>()?.0),
            tag::LIBRARY => variant.tuple_variant(2, LibraryVisitor)?,
            other => return Err(de::Error::custom(WireError::BadTag(other))),
        })
    }
}

struct LibraryVisitor;

impl<'de> Visitor<'de> for LibraryVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a kind and its parts")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let missing = || de::Error::custom("a library value has a kind and its parts");
        let kind: String = seq.next_element()?.ok_or_else(missing)?;
        let parts: Value = seq.next_element()?.ok_or_else(missing)?;
        Ok(Value::Library(kind, Box::new(parts)))
    }
}

struct KeepVisitor;

impl<'de> Visitor<'de> for KeepVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key and a value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let missing = || de::Error::custom("a kept value has a key and a value");
        let key = seq.next_element()?.ok_or_else(missing)?;
        let value: Value = seq.next_element()?.ok_or_else(missing)?;
        Ok(Value::Keep(key, Box::new(value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::codec;
    use crate::protocol::when::Clock;
    use crate::protocol::wire::{Reader, WireResult, Writer};
    use std::sync::Arc;

    fn round_trip(value: &Value) -> Value {
        let frame = codec::encode(value).into_vec();
        codec::decode(Reader::new(&frame)).unwrap()
    }

    fn read(frame: &[u8]) -> WireResult<Value> {
        codec::decode(Reader::new(frame))
    }

    #[test]
    fn sizes_count_every_value_in_a_value() {
        let value = Value::Keep(
            1,
            Box::new(Value::List(vec![
                Value::Str("abc".into()),
                Value::Dict(vec![(Value::Int(1), Value::Bytes(vec![0; 5]))]),
            ])),
        );
        // list 2 + "abc" 3 + dict 2 + int 8 + bytes 5; the Keep itself holds no data.
        assert_eq!(value.data_size(), 2 + 3 + 2 + 8 + 5);
        // 64 a value, six of them (the Keep too), and the 8 bytes of text and binary data.
        assert_eq!(value.size_hint(), 6 * 64 + 8);
        assert_eq!(value.host_size(), 6 * 64 + 8, "ASCII takes the host a byte a character");
    }

    #[test]
    fn a_str_costs_the_host_its_widest_character_times_its_length() {
        for (text, width) in [("abc", 1), ("é ÿ", 1), ("Ā", 2), ("aĀ", 2), ("a✓", 2), ("a😀", 4), ("", 1)] {
            assert_eq!(str_host_bytes(text.as_bytes()), width * text.chars().count(), "{text:?}");
        }
        // One emoji makes every character of a megabyte of ASCII four bytes on the host.
        let text = "x".repeat(1 << 20) + "😀";
        assert_eq!(widened_str(&text), 4 * ((1 << 20) + 1) - text.len());
        let value = Value::List(vec![Value::Str(text.clone()), Value::Str("é".into()), Value::Int(1)]);
        assert_eq!(value.widened(), widened_str(&text));
        assert_eq!(value.host_size(), 4 * PER_VALUE + 4 * ((1 << 20) + 1) + 1);
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
            Value::Library("numpy.ndarray".into(), Box::new(Value::Tuple(vec![Value::Str("<f8".into())]))),
            Value::When(When::Date { year: 2024, month: 2, day: 29 }),
            Value::When(When::DateTime {
                year: 1,
                month: 12,
                day: 31,
                clock: Clock {
                    hour: 23,
                    minute: 59,
                    second: 58,
                    microsecond: 999_999,
                    fold: true,
                    utc_offset_micros: Some(-3_600_000_001),
                },
            }),
            Value::When(When::Time(Clock {
                hour: 0,
                minute: 0,
                second: 0,
                microsecond: 0,
                fold: false,
                utc_offset_micros: None,
            })),
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
        let (a, b) = Channel::pair().unwrap();
        a.send_out_of_line(&codec::encode(&value).parts()).unwrap();
        let (frame, _) = b.recv_trusted(1 << 30).unwrap();
        let Frame::Mapped(_) = &frame else { panic!("sent out of line") };
        let frame_range = frame.as_ptr() as usize..frame.as_ptr() as usize + frame.len();
        let back: Value = codec::decode(Reader::of_frame(&frame)).unwrap();
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
        assert!(matches!(read(&w.buf), Err(WireError::Truncated)));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut w = Writer::default();
        for _ in 0..10_000 {
            w.u8(tag::LIST);
            w.u64(1);
        }
        w.u8(tag::NONE);
        assert!(matches!(read(&w.buf), Err(WireError::TooDeep)));
    }

    #[test]
    fn invalid_utf8_is_refused() {
        let mut w = Writer::default();
        w.u8(tag::STR);
        w.bytes(&[0xff, 0xfe]);
        assert!(matches!(read(&w.buf), Err(WireError::BadUtf8)));
    }
}
