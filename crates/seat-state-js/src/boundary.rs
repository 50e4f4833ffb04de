//! The one place values cross between JavaScript and Rust: a serde
//! deserializer over a `JsValue` and a serializer into one, both as small as
//! the package's types allow.
//!
//! Why not serde-wasm-bindgen: its errors format the offending value, and
//! formatting a number pulls core's float printing (~17 KB) into the wasm;
//! its generic methods also cover Maps, BigInts, bytes and iterables that
//! no type here uses. Errors here are fixed sentences plus the path of the
//! value, e.g. `expected a boolean at snapshot.seats[3].sold`, built
//! without `core::fmt`.
//!
//! Reading: `null` and `undefined` are `None`; integers must be safe
//! integers (`Number.isSafeInteger`); a struct reads only its own fields
//! (a field that is `undefined` counts as absent); an enum is
//! `"variant"` or `{variant: payload}`. Writing: `None` is `null`; structs
//! are plain objects; sequences are arrays; unit variants are their names
//! (nothing here writes maps or tuples).

use std::cell::RefCell;

use serde::de::{self, DeserializeOwned, IntoDeserializer};
use serde::ser::{self, Impossible, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Any JavaScript object, read and written by key.
    #[derive(Clone)]
    type Object;
    #[wasm_bindgen(constructor, js_class = "Object")]
    fn new() -> Object;
    #[wasm_bindgen(method, structural, indexing_getter)]
    fn get(this: &Object, key: &JsValue) -> JsValue;
    #[wasm_bindgen(method, structural, indexing_setter)]
    fn set(this: &Object, key: &JsValue, value: &JsValue);
    #[wasm_bindgen(static_method_of = Object, js_class = "Object")]
    fn keys(object: &Object) -> Array;

    type Array;
    #[wasm_bindgen(constructor, js_class = "Array")]
    fn new() -> Array;
    #[wasm_bindgen(method, structural, getter)]
    fn length(this: &Array) -> u32;
    #[wasm_bindgen(method, structural, indexing_getter)]
    fn get(this: &Array, at: u32) -> JsValue;
    #[wasm_bindgen(method, structural)]
    fn push(this: &Array, value: &JsValue) -> u32;

    #[wasm_bindgen(js_namespace = Number, js_name = isSafeInteger)]
    fn is_safe_integer(value: &JsValue) -> bool;
}

/// A JavaScript value read as `T`; a mismatch throws (a `JsError`).
pub(crate) fn from_js<T: Tsify + DeserializeOwned>(value: &Ts<T>) -> Result<T, JsError> {
    read(value.js_value()).map_err(Error::into_js)
}

/// `T` written as a JavaScript value.
pub(crate) fn to_js<T: Tsify + Serialize>(value: &T) -> Result<Ts<T>, JsError> {
    value.serialize(Writer).map(Ts::new_unchecked).map_err(Error::into_js)
}

fn read<T: DeserializeOwned>(value: JsValue) -> Result<T, Error> {
    T::deserialize(Reader(value))
}

/// What went wrong, and where (`seats[3].sold`), innermost last.
#[derive(Debug)]
pub(crate) struct Error {
    message: &'static str,
    detail: String,
    path: String,
}

impl Error {
    fn new(message: &'static str) -> Self {
        Self { message, detail: String::new(), path: String::new() }
    }

    fn with_detail(message: &'static str, detail: &str) -> Self {
        Self { message, detail: detail.to_owned(), path: String::new() }
    }

    /// Inside the field (or variant) `name`.
    fn in_field(mut self, name: &str) -> Self {
        if !(self.path.is_empty() || self.path.starts_with('[')) {
            self.path.insert(0, '.');
        }
        self.path.insert_str(0, name);
        self
    }

    /// Inside element `at` of an array.
    fn in_element(mut self, at: u32) -> Self {
        let mut digits = [0u8; 10];
        let mut rest = at;
        let mut start = digits.len();
        loop {
            start -= 1;
            // `rest % 10` < 10: the cast cannot truncate.
            digits[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let index: String = digits[start..].iter().map(|&digit| char::from(digit)).collect();
        if !(self.path.is_empty() || self.path.starts_with('[')) {
            self.path.insert(0, '.');
        }
        self.path.insert(0, ']');
        self.path.insert_str(0, &index);
        self.path.insert(0, '[');
        self
    }

    fn into_js(self) -> JsError {
        let mut text = String::from(self.message);
        if !self.detail.is_empty() {
            text.push_str(" `");
            text.push_str(&self.detail);
            text.push('`');
        }
        if !self.path.is_empty() {
            text.push_str(" at ");
            text.push_str(&self.path);
        }
        JsError::new(&text)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.message)
    }
}

impl std::error::Error for Error {}

// Every constructor serde's derives call is overridden: the defaults format
// `Unexpected`, which prints floats.
impl de::Error for Error {
    fn custom<T: std::fmt::Display>(_message: T) -> Self {
        Self::new("invalid value")
    }

    fn invalid_type(_unexpected: de::Unexpected<'_>, _expected: &dyn de::Expected) -> Self {
        Self::new("invalid type")
    }

    fn invalid_value(_unexpected: de::Unexpected<'_>, _expected: &dyn de::Expected) -> Self {
        Self::new("invalid value")
    }

    fn invalid_length(_length: usize, _expected: &dyn de::Expected) -> Self {
        Self::new("invalid length")
    }

    fn unknown_variant(variant: &str, _expected: &'static [&'static str]) -> Self {
        Self::with_detail("unknown variant", variant)
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        Self::with_detail("unknown field", field)
    }

    fn missing_field(field: &'static str) -> Self {
        Self::new("missing field").in_field(field)
    }

    fn duplicate_field(field: &'static str) -> Self {
        Self::with_detail("duplicate field", field)
    }
}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(_message: T) -> Self {
        Self::new("cannot be written as a JavaScript value")
    }
}

thread_local! {
    /// Field names as JavaScript strings, made once each (a seat map reads
    /// the same few names for every seat).
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
        fn $method<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.visit_i64(self.integer()?)
        }
    )*};
}

/// `serialize_*` methods for numbers that a JavaScript number holds exactly.
macro_rules! write_numbers {
    ($($method:ident($type:ty))*) => {$(
        fn $method(self, value: $type) -> Result<JsValue, Error> {
            Ok(JsValue::from_f64(value.into()))
        }
    )*};
}

/// Reads one JavaScript value.
struct Reader(JsValue);

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
struct Elements(Cursor);

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
struct Entries {
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
struct Fields {
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
struct Variant {
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
struct Payload {
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

/// Writes one JavaScript value.
struct Writer;

impl ser::Serializer for Writer {
    type Ok = JsValue;
    type Error = Error;
    type SerializeSeq = ArrayWriter;
    type SerializeTuple = Impossible<JsValue, Error>;
    type SerializeTupleStruct = Impossible<JsValue, Error>;
    type SerializeTupleVariant = Impossible<JsValue, Error>;
    type SerializeMap = Impossible<JsValue, Error>;
    type SerializeStruct = ObjectWriter;
    type SerializeStructVariant = Impossible<JsValue, Error>;

    fn serialize_bool(self, value: bool) -> Result<JsValue, Error> {
        Ok(JsValue::from_bool(value))
    }

    write_numbers!(
        serialize_i8(i8) serialize_i16(i16) serialize_i32(i32) serialize_u8(u8)
        serialize_u16(u16) serialize_u32(u32) serialize_f32(f32)
    );

    /// Instants and versions: exact below 2^53.
    fn serialize_i64(self, value: i64) -> Result<JsValue, Error> {
        Ok(JsValue::from_f64(value as f64))
    }

    fn serialize_u64(self, value: u64) -> Result<JsValue, Error> {
        Ok(JsValue::from_f64(value as f64))
    }

    fn serialize_f64(self, value: f64) -> Result<JsValue, Error> {
        Ok(JsValue::from_f64(value))
    }

    fn serialize_char(self, value: char) -> Result<JsValue, Error> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<JsValue, Error> {
        Ok(JsValue::from_str(value))
    }

    fn serialize_bytes(self, _value: &[u8]) -> Result<JsValue, Error> {
        Err(Error::new("bytes are not written"))
    }

    fn serialize_none(self) -> Result<JsValue, Error> {
        Ok(JsValue::NULL)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<JsValue, Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<JsValue, Error> {
        Ok(JsValue::NULL)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<JsValue, Error> {
        Ok(JsValue::NULL)
    }

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<JsValue, Error> {
        Ok(js_name(variant))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<JsValue, Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<JsValue, Error> {
        let object = Object::new();
        object.set(&js_name(variant), &value.serialize(self)?);
        Ok(object.into())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<ArrayWriter, Error> {
        Ok(ArrayWriter(Array::new()))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Impossible<JsValue, Error>, Error> {
        Err(Error::new("tuples are not written"))
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Impossible<JsValue, Error>, Error> {
        Err(Error::new("tuples are not written"))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<JsValue, Error>, Error> {
        Err(Error::new("tuple variants are not written"))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Impossible<JsValue, Error>, Error> {
        Err(Error::new("maps are not written"))
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<ObjectWriter, Error> {
        Ok(ObjectWriter(Object::new()))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<JsValue, Error>, Error> {
        Err(Error::new("struct variants are not written"))
    }
}

/// A sequence as an array.
struct ArrayWriter(Array);

impl ser::SerializeSeq for ArrayWriter {
    type Ok = JsValue;
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(&value.serialize(Writer)?);
        Ok(())
    }

    fn end(self) -> Result<JsValue, Error> {
        Ok(self.0.into())
    }
}

/// A struct as a plain object.
struct ObjectWriter(Object);

impl ser::SerializeStruct for ObjectWriter {
    type Ok = JsValue;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.0.set(&js_name(key), &value.serialize(Writer)?);
        Ok(())
    }

    fn end(self) -> Result<JsValue, Error> {
        Ok(self.0.into())
    }
}
