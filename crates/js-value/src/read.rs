//! Reading: a serde deserializer over one JavaScript value.

use serde::de::{self, IntoDeserializer};
use wasm_bindgen::prelude::*;

use crate::{Array, Error, Object, is_safe_integer, js_name};

/// `deserialize_*` methods that read a safe integer.
macro_rules! read_integers {
    ($($method:ident)*) => {$(
        fn $method<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.visit_i64(self.integer()?)
        }
    )*};
}

/// Reads one JavaScript value.
pub(crate) struct Reader(pub(crate) JsValue);

impl Reader {
    fn is_nullish(&self) -> bool {
        self.0.is_null() || self.0.is_undefined()
    }

    fn integer(&self) -> Result<i64, Error> {
        if is_safe_integer(&self.0) {
            // A safe integer converts exactly.
            Ok(self.0.as_f64().unwrap_or_default() as i64)
        } else {
            Err(Error::new("expected an integer"))
        }
    }

    fn object(self) -> Result<Object, Error> {
        if self.0.is_object() && !self.0.is_array() {
            Ok(self.0.unchecked_into())
        } else {
            Err(Error::new("expected an object"))
        }
    }

    fn string(&self) -> Result<String, Error> {
        self.0.as_string().ok_or_else(|| Error::new("expected a string"))
    }
}

impl<'de> de::Deserializer<'de> for Reader {
    type Error = Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_nullish() {
            visitor.visit_unit()
        } else if let Some(value) = self.0.as_bool() {
            visitor.visit_bool(value)
        } else if let Ok(value) = self.integer() {
            visitor.visit_i64(value)
        } else if let Some(value) = self.0.as_f64() {
            visitor.visit_f64(value)
        } else if let Some(value) = self.0.as_string() {
            visitor.visit_string(value)
        } else if self.0.is_array() {
            self.deserialize_seq(visitor)
        } else {
            self.deserialize_map(visitor)
        }
    }

    fn deserialize_bool<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_bool(self.0.as_bool().ok_or_else(|| Error::new("expected a boolean"))?)
    }

    // Every integer is read as an i64: serde's visitors for the narrower and
    // unsigned types check the range themselves.
    read_integers!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    );

    fn deserialize_f32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_f64(self.0.as_f64().ok_or_else(|| Error::new("expected a number"))?)
    }

    fn deserialize_char<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.string()?)
    }

    fn deserialize_bytes<V: de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(Error::new("bytes are not read"))
    }

    fn deserialize_byte_buf<V: de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(Error::new("bytes are not read"))
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_nullish() { visitor.visit_none() } else { visitor.visit_some(self) }
    }

    fn deserialize_unit<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_nullish() { visitor.visit_unit() } else { Err(Error::new("expected null")) }
    }

    fn deserialize_unit_struct<V: de::Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if !self.0.is_array() {
            return Err(Error::new("expected an array"));
        }
        visitor.visit_seq(Elements(Cursor::new(self.0.unchecked_into())))
    }

    fn deserialize_tuple<V: de::Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let object = self.object()?;
        let keys = Cursor::new(Object::keys(&object));
        visitor.visit_map(Entries { object, keys, key: JsValue::UNDEFINED, name: String::new() })
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let object = self.object()?;
        visitor.visit_map(Fields { object, fields: fields.iter(), current: None })
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if let Some(tag) = self.0.as_string() {
            return visitor.visit_enum(Variant { tag, payload: JsValue::UNDEFINED });
        }
        let object = self.object()?;
        let keys = Object::keys(&object);
        if keys.length() != 1 {
            return Err(Error::new("expected an object with exactly one key"));
        }
        let key = keys.get(0);
        let payload = object.get(&key);
        visitor.visit_enum(Variant { tag: key.as_string().unwrap_or_default(), payload })
    }

    fn deserialize_identifier<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_ignored_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// An array read front to back.
pub(crate) struct Cursor {
    array: Array,
    at: u32,
    length: u32,
}

impl Cursor {
    fn new(array: Array) -> Self {
        let length = array.length();
        Self { array, at: 0, length }
    }

    /// The next element and its index.
    fn next(&mut self) -> Option<(u32, JsValue)> {
        let at = self.at;
        (at < self.length).then(|| {
            self.at += 1;
            (at, self.array.get(at))
        })
    }
}

/// An array's elements, in order.
pub(crate) struct Elements(Cursor);

impl<'de> de::SeqAccess<'de> for Elements {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some((at, value)) = self.0.next() else {
            return Ok(None);
        };
        seed.deserialize(Reader(value)).map(Some).map_err(|error| error.in_element(at))
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.0.length - self.0.at).ok()
    }
}

/// A map's entries: an object's own enumerable keys, in order.
pub(crate) struct Entries {
    object: Object,
    keys: Cursor,
    key: JsValue,
    name: String,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((_, key)) = self.keys.next() else {
            return Ok(None);
        };
        self.name = key.as_string().unwrap_or_default();
        self.key = key;
        seed.deserialize(self.name.as_str().into_deserializer()).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(Reader(self.object.get(&self.key))).map_err(|error| error.in_field(&self.name))
    }
}

/// A struct's fields, read by name (other keys are never looked at).
pub(crate) struct Fields {
    object: Object,
    fields: std::slice::Iter<'static, &'static str>,
    current: Option<(&'static str, JsValue)>,
}

impl<'de> de::MapAccess<'de> for Fields {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        for &field in &mut self.fields {
            let value = self.object.get(&js_name(field));
            if !value.is_undefined() {
                self.current = Some((field, value));
                return seed.deserialize(field.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((field, value)) = self.current.take() else {
            return Err(Error::new("a value without its key"));
        };
        seed.deserialize(Reader(value)).map_err(|error| error.in_field(field))
    }
}

/// An enum: `"tag"`, or `{tag: payload}`.
pub(crate) struct Variant {
    tag: String,
    payload: JsValue,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Payload;

    fn variant_seed<V: de::DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Payload), Error> {
        let value = seed.deserialize(self.tag.as_str().into_deserializer())?;
        Ok((value, Payload { tag: self.tag, value: self.payload }))
    }
}

/// The payload of an enum's variant.
pub(crate) struct Payload {
    tag: String,
    value: JsValue,
}

impl<'de> de::VariantAccess<'de> for Payload {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(Reader(self.value)).map_err(|error| error.in_field(&self.tag))
    }

    fn tuple_variant<V: de::Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_tuple(Reader(self.value), len, visitor).map_err(|error| error.in_field(&self.tag))
    }

    fn struct_variant<V: de::Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(Reader(self.value), "", fields, visitor)
            .map_err(|error| error.in_field(&self.tag))
    }
}
