//! The one place values cross between JavaScript and the package's types:
//! `seathold-js-value`'s reader and writer, typed by tsify's `Ts<T>`.
//! A mismatch throws an `Error` naming the path of the value.

use serde::Serialize;
use serde::de::DeserializeOwned;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

/// A JavaScript value read as `T`; a mismatch throws (a `JsError`).
pub(crate) fn from_js<T: Tsify + DeserializeOwned>(value: &Ts<T>) -> Result<T, JsError> {
    seathold_js_value::from_value(value.js_value()).map_err(seathold_js_value::Error::into_js)
}

/// `T` written as a JavaScript value.
pub(crate) fn to_js<T: Tsify + Serialize>(value: &T) -> Result<Ts<T>, JsError> {
    seathold_js_value::to_value(value).map(Ts::new_unchecked).map_err(seathold_js_value::Error::into_js)
}
