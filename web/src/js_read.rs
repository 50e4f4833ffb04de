//! Reading a value the browser parsed (`JSON.parse`, `Response.json()`)
//! as a wire type: a serde deserializer over one `JsValue`.
//!
//! Why not serde-wasm-bindgen's: its errors format the offending value,
//! which links core's float printing and serde's `Unexpected` messages into
//! the wasm, and its generic methods cover Maps, BigInts, bytes and
//! iterables that no answer holds. Here a mismatch is one fixed error (the
//! caller only says "unreadable answer"), structs read only their own
//! fields by name (with the names made JavaScript strings once), and field
//! reads are plain property reads. The same reading as `crates/seat-state-js`'s
//! boundary: `null` and `undefined` are `None`, integers must be safe
//! integers, an enum is `"variant"` or `{variant: payload}`.

use std::cell::RefCell;

use serde::de::{self, DeserializeOwned, IntoDeserializer};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Any JavaScript object, read by key.
    type Object;
    #[wasm_bindgen(method, structural, indexing_getter)]
    fn get(this: &Object, key: &JsValue) -> JsValue;
    #[wasm_bindgen(static_method_of = Object, js_class = "Object")]
    fn keys(object: &Object) -> Array;

    type Array;
    #[wasm_bindgen(method, structural, getter)]
    fn length(this: &Array) -> u32;
    #[wasm_bindgen(method, structural, indexing_getter)]
    fn get(this: &Array, at: u32) -> JsValue;

    #[wasm_bindgen(js_namespace = Number, js_name = isSafeInteger)]
    fn is_safe_integer(value: &JsValue) -> bool;
}

/// `value` read as `T`; `None` when it does not fit.
pub fn from_value<T: DeserializeOwned>(value: JsValue) -> Option<T> {
    T::deserialize(Reader(value)).ok()
}

/// The value did not fit the type. Every constructor serde's derives call
/// is overridden: the defaults format `Unexpected`, which prints floats.
#[derive(Debug)]
pub struct Unreadable;

impl std::fmt::Display for Unreadable {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("unreadable value")
    }
}

impl std::error::Error for Unreadable {}

impl de::Error for Unreadable {
    fn custom<T: std::fmt::Display>(_message: T) -> Self {
        Self
    }

    fn invalid_type(_unexpected: de::Unexpected<'_>, _expected: &dyn de::Expected) -> Self {
        Self
    }

    fn invalid_value(_unexpected: de::Unexpected<'_>, _expected: &dyn de::Expected) -> Self {
        Self
    }

    fn invalid_length(_length: usize, _expected: &dyn de::Expected) -> Self {
        Self
    }

    fn unknown_variant(_variant: &str, _expected: &'static [&'static str]) -> Self {
        Self
    }

    fn unknown_field(_field: &str, _expected: &'static [&'static str]) -> Self {
        Self
    }

    fn missing_field(_field: &'static str) -> Self {
        Self
    }

    fn duplicate_field(_field: &'static str) -> Self {
        Self
    }
}

thread_local! {
    /// Field names as JavaScript strings, made once each (a show reads the
    /// same few names for each of its 20,000 seats).
    static NAMES: RefCell<Vec<(usize, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// `name` as a JavaScript string, cached by address.
fn js_name(name: &'static str) -> JsValue {
    let address = name.as_ptr() as usize;
    NAMES.with_borrow_mut(|names| {
        if let Some((_, js)) = names.iter().find(|(at, _)| *at == address) {
            return js.clone();
        }
        let js = JsValue::from_str(name);
        names.push((address, js.clone()));
        js
    })
}

/// `deserialize_*` methods that read a safe integer.
macro_rules! read_integers {
    ($($method:ident)*) => {$(
        fn $method<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
            visitor.visit_i64(self.integer()?)
        }
    )*};
}

/// Reads one JavaScript value.
struct Reader(JsValue);

impl Reader {
    fn is_nullish(&self) -> bool {
        self.0.is_null() || self.0.is_undefined()
    }

    fn integer(&self) -> Result<i64, Unreadable> {
        // A safe integer converts exactly.
        if is_safe_integer(&self.0) { Ok(self.0.as_f64().unwrap_or_default() as i64) } else { Err(Unreadable) }
    }

    fn object(self) -> Result<Object, Unreadable> {
        if self.0.is_object() && !self.0.is_array() { Ok(self.0.unchecked_into()) } else { Err(Unreadable) }
    }

    fn string(&self) -> Result<String, Unreadable> {
        self.0.as_string().ok_or(Unreadable)
    }
}

impl<'de> de::Deserializer<'de> for Reader {
    type Error = Unreadable;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
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

    fn deserialize_bool<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        visitor.visit_bool(self.0.as_bool().ok_or(Unreadable)?)
    }

    // Every integer is read as an i64: serde's visitors for the narrower and
    // unsigned types check the range themselves.
    read_integers!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    );

    fn deserialize_f32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        visitor.visit_f64(self.0.as_f64().ok_or(Unreadable)?)
    }

    fn deserialize_char<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        visitor.visit_string(self.string()?)
    }

    fn deserialize_bytes<V: de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Unreadable> {
        Err(Unreadable)
    }

    fn deserialize_byte_buf<V: de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Unreadable> {
        Err(Unreadable)
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        if self.is_nullish() { visitor.visit_none() } else { visitor.visit_some(self) }
    }

    fn deserialize_unit<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        if self.is_nullish() { visitor.visit_unit() } else { Err(Unreadable) }
    }

    fn deserialize_unit_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Unreadable> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Unreadable> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        if !self.0.is_array() {
            return Err(Unreadable);
        }
        visitor.visit_seq(Cursor::new(self.0.unchecked_into()))
    }

    fn deserialize_tuple<V: de::Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Unreadable> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Unreadable> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        let object = self.object()?;
        let keys = Cursor::new(Object::keys(&object));
        visitor.visit_map(Entries { object, keys, key: JsValue::UNDEFINED })
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unreadable> {
        let object = self.object()?;
        visitor.visit_map(Fields { object, fields: fields.iter(), current: None })
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unreadable> {
        if let Some(tag) = self.0.as_string() {
            return visitor.visit_enum(Variant { tag, payload: JsValue::UNDEFINED });
        }
        let object = self.object()?;
        let keys = Object::keys(&object);
        if keys.length() != 1 {
            return Err(Unreadable);
        }
        let key = keys.get(0);
        let payload = object.get(&key);
        visitor.visit_enum(Variant { tag: key.as_string().unwrap_or_default(), payload })
    }

    fn deserialize_identifier<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        self.deserialize_string(visitor)
    }

    fn deserialize_ignored_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unreadable> {
        visitor.visit_unit()
    }
}

/// An array read front to back.
struct Cursor {
    array: Array,
    at: u32,
    length: u32,
}

impl Cursor {
    fn new(array: Array) -> Self {
        let length = array.length();
        Self { array, at: 0, length }
    }

    fn next(&mut self) -> Option<JsValue> {
        let at = self.at;
        (at < self.length).then(|| {
            self.at += 1;
            self.array.get(at)
        })
    }
}

impl<'de> de::SeqAccess<'de> for Cursor {
    type Error = Unreadable;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Unreadable> {
        match self.next() {
            Some(value) => seed.deserialize(Reader(value)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.length - self.at).ok()
    }
}

/// A map's entries: an object's own enumerable keys, in order.
struct Entries {
    object: Object,
    keys: Cursor,
    key: JsValue,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = Unreadable;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Unreadable> {
        let Some(key) = self.keys.next() else {
            return Ok(None);
        };
        let name = key.as_string().ok_or(Unreadable)?;
        self.key = key;
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Unreadable> {
        seed.deserialize(Reader(self.object.get(&self.key)))
    }
}

/// A struct's fields, read by name (other keys are never looked at; a
/// field that is `undefined` counts as absent).
struct Fields {
    object: Object,
    fields: std::slice::Iter<'static, &'static str>,
    current: Option<JsValue>,
}

impl<'de> de::MapAccess<'de> for Fields {
    type Error = Unreadable;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Unreadable> {
        for &field in &mut self.fields {
            let value = self.object.get(&js_name(field));
            if !value.is_undefined() {
                self.current = Some(value);
                return seed.deserialize(field.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Unreadable> {
        seed.deserialize(Reader(self.current.take().ok_or(Unreadable)?))
    }
}

/// An enum: `"tag"`, or `{tag: payload}`.
struct Variant {
    tag: String,
    payload: JsValue,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = Unreadable;
    type Variant = Payload;

    fn variant_seed<V: de::DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Payload), Unreadable> {
        let value = seed.deserialize(self.tag.into_deserializer())?;
        Ok((value, Payload(self.payload)))
    }
}

/// The payload of an enum's variant.
struct Payload(JsValue);

impl<'de> de::VariantAccess<'de> for Payload {
    type Error = Unreadable;

    fn unit_variant(self) -> Result<(), Unreadable> {
        Ok(())
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Unreadable> {
        seed.deserialize(Reader(self.0))
    }

    fn tuple_variant<V: de::Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Unreadable> {
        de::Deserializer::deserialize_tuple(Reader(self.0), len, visitor)
    }

    fn struct_variant<V: de::Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unreadable> {
        de::Deserializer::deserialize_struct(Reader(self.0), "", fields, visitor)
    }
}
