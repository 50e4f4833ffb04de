//! Prices as the customer reads them: minor units of an ISO 4217 currency,
//! formatted by the browser's own `Intl.NumberFormat` in the page's
//! language (no currency table in the wasm).

use wasm_bindgen::JsValue;

/// "€45.00" (or "45,00 €", "¥500"): `minor` units of `currency`, whose
/// number of decimals `Intl` knows. The server has checked the code's form
/// (3 capital letters), which is all `Intl` asks.
pub fn format(minor: i64, currency: &str) -> String {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"style".into(), &"currency".into());
    let _ = js_sys::Reflect::set(&options, &"currency".into(), &currency.into());
    let formatter = js_sys::Intl::NumberFormat::new(&js_sys::Array::new(), &options);
    let digits = js_sys::Reflect::get(&formatter.resolved_options(), &"maximumFractionDigits".into())
        .ok()
        .and_then(|digits| digits.as_f64())
        .unwrap_or(2.0);
    let value = minor as f64 / 10_f64.powi(digits as i32);
    let text = formatter.format().call1(&JsValue::NULL, &value.into()).ok().and_then(|text| text.as_string());
    text.unwrap_or_else(|| format!("{minor} {currency}"))
}
