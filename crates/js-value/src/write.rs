//! Writing: a serde serializer into one JavaScript value.

use serde::ser::{self, Impossible, Serialize};
use wasm_bindgen::prelude::*;

use crate::{Array, Error, Object, js_name};

/// `serialize_*` methods for numbers that a JavaScript number holds exactly.
macro_rules! write_numbers {
    ($($method:ident($type:ty))*) => {$(
        fn $method(self, value: $type) -> Result<JsValue, Error> {
            Ok(JsValue::from_f64(value.into()))
        }
    )*};
}

/// Writes one JavaScript value.
pub(crate) struct Writer;

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
pub(crate) struct ArrayWriter(Array);

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
pub(crate) struct ObjectWriter(Object);

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
