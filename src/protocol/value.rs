//! The plain data that crosses between host and session: None, bool, int of any size, float, str, bytes,
//! list, tuple, dict, set, frozenset, nested. `Keep`/`Kept` let a large str or bytes injected again as the
//! same host object reuse the session's copy instead of crossing again.

use super::wire::{Reader, WireError, WireResult, Writer};

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
    /// A value the session keeps under this key for the next run (host -> session only).
    Keep(u64, Box<Value>),
    /// The value kept under this key by the previous run (host -> session only).
    Kept(u64),
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
}

impl Value {
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
            Value::Keep(key, value) => {
                w.u8(tag::KEEP);
                w.u64(*key);
                value.write(w);
            }
            Value::Kept(key) => {
                w.u8(tag::KEPT);
                w.u64(*key);
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
        let items = |r: &mut Reader<'_>| -> WireResult<Vec<Value>> {
            let n = r.count(1)?;
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
            other => return Err(WireError::BadTag(other)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(value: &Value) -> Value {
        let mut w = Writer::default();
        value.write(&mut w);
        let mut r = Reader::new(&w.buf);
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
            Value::Kept(3),
        ]);
        assert_eq!(round_trip(&value), value);
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
