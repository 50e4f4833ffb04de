//! Values across the JavaScript boundary, for both wasm crates (the web app
//! and the JS package): a serde deserializer over a `JsValue` and a
//! serializer into one, both as small as the wire types allow.
//!
//! Why not serde-wasm-bindgen: its errors format the offending value, and
//! formatting a number pulls core's float printing (~17 KB) into the wasm;
//! its generic methods also cover Maps, BigInts, bytes and iterables that
//! no type here uses. Errors here are fixed sentences; with the `paths`
//! feature (the JS package's) also the path of the value, e.g. `expected a
//! boolean at snapshot.seats[3].sold`, built without `core::fmt`. The web
//! app reads only whether an answer parsed, and the paths' code, made
//! once for every field of every wire type, cost its wasm 11.7 KB gzipped.
//!
//! Reading: `null` and `undefined` are `None`; integers must be safe
//! integers (`Number.isSafeInteger`); a struct reads only its own fields
//! by name, with each name made a JavaScript string once (a field that is
//! `undefined` counts as absent); an enum is `"variant"` or
//! `{variant: payload}`. Writing: `None` is `null`; structs are plain
//! objects; sequences are arrays; unit variants are their names (nothing
//! writes maps or tuples).

use std::cell::RefCell;

use serde::de::{self, DeserializeOwned};
use serde::ser::{self, Serialize};
use wasm_bindgen::prelude::*;

mod place;
mod read;
mod write;

use place::Place;
use read::Reader;
use write::Writer;

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

/// A JavaScript value (as `JSON.parse` or a caller made it) read as `T`.
pub fn from_value<T: DeserializeOwned>(value: JsValue) -> Result<T, Error> {
    T::deserialize(Reader(value))
}

/// `value` written as a JavaScript value.
pub fn to_value<T: Serialize>(value: &T) -> Result<JsValue, Error> {
    value.serialize(Writer)
}

/// What went wrong, and where (`seats[3].sold`, with the `paths` feature).
#[derive(Debug)]
pub struct Error {
    message: &'static str,
    place: Place,
}

impl Error {
    fn new(message: &'static str) -> Self {
        Self { message, place: Place::none() }
    }

    fn with_detail(message: &'static str, detail: &str) -> Self {
        Self { message, place: Place::detailed(detail) }
    }

    /// Inside the field (or variant) `name`.
    fn in_field(mut self, name: &str) -> Self {
        self.place.in_field(name);
        self
    }

    /// Inside element `at` of an array.
    fn in_element(mut self, at: u32) -> Self {
        self.place.in_element(at);
        self
    }

    /// The whole sentence: `expected a boolean at seats[3].sold`.
    pub fn text(&self) -> String {
        let mut text = String::from(self.message);
        self.place.describe(&mut text);
        text
    }

    /// As a JavaScript `Error` to throw.
    pub fn into_js(self) -> JsError {
        JsError::new(&self.text())
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
