//! The messages' types derive `serde`'s traits; this is the one serializer and deserializer that puts them on
//! the wire (`wire.rs`'s encoding: little-endian integers, `u64` lengths, a `u8` tag per enum variant, an
//! option as a `0`/`1` byte), so no message's fields are written out by hand. It is a binary format of its own
//! rather than a general one because it does three things a general one cannot: a large host `str`/`bytes`
//! stays where it is and is sent from there, on a page of the frame (`Writer::refer`); a session that maps the
//! frame keeps those pages as the value (`Reader::padded_bytes`); and every bound of an untrusted frame is
//! checked here, once, before anything is allocated: a length against the bytes left, a collection's claimed
//! size against the frame's budget of values, each `Value` against that budget and its nesting depth.
//!
//! Adding a message or a field: give its type `#[derive(Serialize, Deserialize)]`; an enum's variants are
//! numbered in declaration order (the tag on the wire), so a new variant goes last.

use std::cell::RefCell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};

use super::wire::{Encoded, HostBuffer, Reader, WireError, WireResult, Writer, MAX_DEPTH};

/// The name `Value` gives its enum: each one read spends the frame's value budget and is a level of depth.
pub const VALUE: &str = "Value";
/// The name of a newtype that carries a referred host buffer (see `Referred`).
const REFER: &str = "\0refer";
/// The name of a newtype read as the bytes `Writer::refer` wrote (see `padded`).
pub const PADDED: &str = "\0padded";

impl ser::Error for WireError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        WireError::Malformed(msg.to_string())
    }
}

impl de::Error for WireError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        WireError::Malformed(msg.to_string())
    }
}

/// `value` on the wire.
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Encoded {
    let mut encoder = Encoder { w: Writer::default() };
    // Every type on the wire serializes with this encoder; a failure is a message this side built wrong.
    value.serialize(&mut encoder).expect("a message of the protocol's types encodes");
    encoder.w.finish()
}

/// A `T` read from all of `reader`'s frame.
pub fn decode<'a, T: de::Deserialize<'a>>(reader: Reader<'a>) -> WireResult<T> {
    let mut decoder = Decoder { r: reader, depth: 0 };
    let value = T::deserialize(&mut decoder)?;
    decoder.r.finish()?;
    Ok(value)
}

// -- writing ------------------------------------------------------------------------------------------------

thread_local! {
    /// The host buffer a `Referred` hands the encoder it is serialized by (serde passes no other way).
    static REFERRED: RefCell<Option<HostBuffer>> = const { RefCell::new(None) };
}

/// A host buffer written by reference (`Writer::refer`): the frame is sent from the buffer itself.
pub struct Referred<'a>(pub &'a HostBuffer);

impl Serialize for Referred<'_> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        REFERRED.with(|slot| *slot.borrow_mut() = Some(self.0.clone()));
        serializer.serialize_newtype_struct(REFER, &())
    }
}

/// Bytes as one length-prefixed string (serde writes a `[u8]` item by item otherwise).
pub struct Bytes<'a>(pub &'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// `#[serde(with = "codec::bytes")]` for a `Vec<u8>` field.
pub mod bytes {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(super::ByteBuf)
    }
}

/// Reads bytes into an owned buffer.
pub struct ByteBuf;

impl<'de> Visitor<'de> for ByteBuf {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("bytes")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
        Ok(bytes.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(bytes)
    }
}

struct Encoder {
    w: Writer,
}

fn tag(index: u32) -> Result<u8, WireError> {
    u8::try_from(index).map_err(|_| WireError::Malformed(format!("variant {index} has no one-byte tag")))
}

fn unsupported(what: &str) -> WireError {
    WireError::Malformed(format!("the wire has no {what}"))
}

impl ser::Serializer for &mut Encoder {
    type Ok = ();
    type Error = WireError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> WireResult<()> {
        self.w.bool(v);
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> WireResult<()> {
        Err(unsupported("i8"))
    }
    fn serialize_i16(self, _: i16) -> WireResult<()> {
        Err(unsupported("i16"))
    }
    fn serialize_i32(self, v: i32) -> WireResult<()> {
        self.w.u32(v as u32);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> WireResult<()> {
        self.w.i64(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> WireResult<()> {
        self.w.u8(v);
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> WireResult<()> {
        Err(unsupported("u16"))
    }
    fn serialize_u32(self, v: u32) -> WireResult<()> {
        self.w.u32(v);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> WireResult<()> {
        self.w.u64(v);
        Ok(())
    }
    fn serialize_f32(self, _: f32) -> WireResult<()> {
        Err(unsupported("f32"))
    }
    fn serialize_f64(self, v: f64) -> WireResult<()> {
        self.w.f64(v);
        Ok(())
    }
    fn serialize_char(self, _: char) -> WireResult<()> {
        Err(unsupported("char"))
    }
    fn serialize_str(self, v: &str) -> WireResult<()> {
        self.w.str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> WireResult<()> {
        self.w.bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> WireResult<()> {
        self.w.u8(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> WireResult<()> {
        self.w.u8(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> WireResult<()> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> WireResult<()> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> WireResult<()> {
        self.w.u8(tag(index)?);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> WireResult<()> {
        if name == REFER {
            let buffer =
                REFERRED.with(|slot| slot.borrow_mut().take()).ok_or_else(|| unsupported("referred buffer here"))?;
            self.w.refer(&buffer);
            return Ok(());
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> WireResult<()> {
        self.w.u8(tag(index)?);
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> WireResult<Self> {
        self.w.len(len.ok_or_else(|| unsupported("sequence of unknown length"))?);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> WireResult<Self> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> WireResult<Self> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, index: u32, _: &'static str, _: usize) -> WireResult<Self> {
        self.w.u8(tag(index)?);
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> WireResult<Self> {
        self.w.len(len.ok_or_else(|| unsupported("map of unknown length"))?);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> WireResult<Self> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, index: u32, _: &'static str, _: usize) -> WireResult<Self> {
        self.w.u8(tag(index)?);
        Ok(self)
    }
}

/// Items, fields and entries follow one another with nothing between them.
macro_rules! in_sequence {
    ($trait:ident, $method:ident $(, $key:ident)?) => {
        impl<'e> ser::$trait for &'e mut Encoder {
            type Ok = ();
            type Error = WireError;
            fn $method<T: Serialize + ?Sized>(&mut self, $($key: &'static str,)? value: &T) -> WireResult<()> {
                $(let _ = $key;)?
                value.serialize(&mut **self)
            }
            fn end(self) -> WireResult<()> {
                Ok(())
            }
        }
    };
}

in_sequence!(SerializeSeq, serialize_element);
in_sequence!(SerializeTuple, serialize_element);
in_sequence!(SerializeTupleStruct, serialize_field);
in_sequence!(SerializeTupleVariant, serialize_field);
in_sequence!(SerializeStruct, serialize_field, key);
in_sequence!(SerializeStructVariant, serialize_field, key);

impl ser::SerializeMap for &mut Encoder {
    type Ok = ();
    type Error = WireError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> WireResult<()> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> WireResult<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> WireResult<()> {
        Ok(())
    }
}

// -- reading ------------------------------------------------------------------------------------------------

struct Decoder<'a> {
    r: Reader<'a>,
    /// `Value`s being read, one inside the other.
    depth: usize,
}

impl<'de> Decoder<'de> {
    /// A collection of `n` items follows: no more than the frame has bytes left (each item is at least one)
    /// or its value budget allows, checked before the caller allocates anything for them.
    fn collection(&mut self, min_item_bytes: usize) -> WireResult<usize> {
        let n = self.r.count(min_item_bytes)?;
        self.r.room_for_values(n)?;
        Ok(n)
    }
}

impl<'de> de::Deserializer<'de> for &mut Decoder<'de> {
    type Error = WireError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("self-describing values"))
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_bool(self.r.bool()?)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("i8"))
    }
    fn deserialize_i16<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("i16"))
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_i32(self.r.u32()? as i32)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_i64(self.r.i64()?)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_u8(self.r.u8()?)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("u16"))
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_u32(self.r.u32()?)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_u64(self.r.u64()?)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("f32"))
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_f64(self.r.f64()?)
    }
    fn deserialize_char<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("char"))
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_borrowed_str(self.r.str()?)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_borrowed_str(self.r.str()?)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_borrowed_bytes(self.r.bytes()?)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_borrowed_bytes(self.r.bytes()?)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        match self.r.u8()? {
            0 => visitor.visit_none(),
            1 => visitor.visit_some(self),
            other => Err(WireError::BadTag(other)),
        }
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> WireResult<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> WireResult<V::Value> {
        if name == PADDED {
            return visitor.visit_byte_buf(self.r.padded_bytes()?);
        }
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        let left = self.collection(1)?;
        visitor.visit_seq(Items { de: self, left })
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> WireResult<V::Value> {
        visitor.visit_seq(Items { de: self, left: len })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> WireResult<V::Value> {
        visitor.visit_seq(Items { de: self, left: len })
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> WireResult<V::Value> {
        let left = self.collection(2)?;
        visitor.visit_map(Items { de: self, left })
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> WireResult<V::Value> {
        visitor.visit_seq(Items { de: self, left: fields.len() })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> WireResult<V::Value> {
        if name != VALUE {
            return visitor.visit_enum(Variant { de: self });
        }
        self.r.spend_value()?;
        if self.depth > MAX_DEPTH {
            return Err(WireError::TooDeep);
        }
        self.depth += 1;
        let value = visitor.visit_enum(Variant { de: &mut *self });
        self.depth -= 1;
        value
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("identifiers"))
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> WireResult<V::Value> {
        Err(unsupported("values to skip"))
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The items of a collection, the fields of a struct or tuple: `left` more follow.
struct Items<'d, 'de> {
    de: &'d mut Decoder<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = WireError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> WireResult<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = WireError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> WireResult<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> WireResult<V::Value> {
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// An enum: its one-byte tag, then what that variant holds.
struct Variant<'d, 'de> {
    de: &'d mut Decoder<'de>,
}

impl<'de> de::EnumAccess<'de> for Variant<'_, 'de> {
    type Error = WireError;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> WireResult<(T::Value, Self)> {
        let tag = u32::from(self.de.r.u8()?);
        let variant = seed.deserialize(IntoDeserializer::<WireError>::into_deserializer(tag))?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = WireError;

    fn unit_variant(self) -> WireResult<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> WireResult<T::Value> {
        seed.deserialize(self.de)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> WireResult<V::Value> {
        visitor.visit_seq(Items { de: self.de, left: len })
    }
    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> WireResult<V::Value> {
        visitor.visit_seq(Items { de: self.de, left: fields.len() })
    }
}
