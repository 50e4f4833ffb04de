//! Numbers for SVG attributes with one decimal, written with integer
//! arithmetic: formatting `f64` would link the float printer (several KB
//! of wasm) for a tenth of a map unit.

use std::fmt;

/// Displays an `f64` rounded to one decimal, e.g. `-12.5`, `30`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dec(pub f64);

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(12);
        push_dec(&mut text, self.0);
        f.write_str(&text)
    }
}

/// Writes `value` rounded to one decimal at the end of `out`, as [`Dec`]
/// displays it (and without the formatting machinery: the seat map writes
/// 20,000 paths at once).
pub fn push_dec(out: &mut String, value: f64) {
    // Map units stay far inside i64; non-finite values print as 0.
    let tenths = if value.is_finite() { (value * 10.0).round() as i64 } else { 0 };
    if tenths < 0 {
        out.push('-');
    }
    let (whole, tenth) = (tenths.unsigned_abs() / 10, tenths.unsigned_abs() % 10);
    push_uint(out, whole);
    if tenth != 0 {
        out.push('.');
        out.push(char::from(b'0' + tenth as u8));
    }
}

/// Writes a whole number's decimal digits at the end of `out`.
pub fn push_uint(out: &mut String, mut value: u64) {
    let mut digits = [0_u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        out.push(char::from(digit));
    }
}
