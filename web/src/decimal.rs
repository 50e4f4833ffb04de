//! Numbers for SVG attributes with one decimal, written with integer
//! arithmetic: formatting `f64` would link the float printer (several KB
//! of wasm) for a tenth of a map unit.

use std::fmt;

/// Displays an `f64` rounded to one decimal, e.g. `-12.5`, `30`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dec(pub f64);

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Map units stay far inside i64; non-finite values print as 0.
        let tenths = if self.0.is_finite() { (self.0 * 10.0).round() as i64 } else { 0 };
        let sign = if tenths < 0 { "-" } else { "" };
        let (whole, tenth) = (tenths.unsigned_abs() / 10, tenths.unsigned_abs() % 10);
        if tenth == 0 { write!(f, "{sign}{whole}") } else { write!(f, "{sign}{whole}.{tenth}") }
    }
}
