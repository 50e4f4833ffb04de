//! Where a seat stands along a straight or curved row, computed with
//! `+ − × ÷` and rounding only. IEEE 754 gives those the same bits on
//! every platform, while a platform's `sin` may differ in its last bit: the
//! browser's wasm and the server place every seat at the same point.

/// π/2 in two parts (fdlibm's `pio2_1`, `pio2_1t`): the first has 33
/// significant bits, so a multiple of it up to 2²⁰ is exact.
const FRAC_PI_2_HI: f64 = 1.570_796_326_734_125_6;
const FRAC_PI_2_LO: f64 = 6.077_100_506_506_192e-11;

/// Map units are kept to a hundredth: short numbers, the same shape.
const UNIT: f64 = 100.0;

/// `(sin x, cos x)`, within a few ulps for the angles rows use.
pub(crate) fn sin_cos(x: f64) -> (f64, f64) {
    let quarter = (x * core::f64::consts::FRAC_2_PI).round();
    let r = (x - quarter * FRAC_PI_2_HI) - quarter * FRAC_PI_2_LO;
    let r2 = r * r;
    // Taylor series to r¹⁷ and r¹⁶: the next terms are below 1e-18 for |r| ≤ π/4.
    let sin_terms = [
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
        1.0 / 355_687_428_096_000.0,
    ];
    let cos_terms = [
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
        1.0 / 20_922_789_888_000.0,
    ];
    let horner = |terms: &[f64]| terms.iter().rev().fold(0.0, |sum, term| sum * r2 + term);
    let sin = r + r * r2 * horner(&sin_terms);
    let cos = 1.0 + r2 * horner(&cos_terms);
    match (quarter as i64).rem_euclid(4) {
        0 => (sin, cos),
        1 => (cos, -sin),
        2 => (-sin, -cos),
        _ => (-cos, sin),
    }
}

/// The point `distance` along a row that starts at `(x, y)` heading
/// `heading` radians, bending about a centre `radius` to the right of the
/// heading (straight without one), rounded to a hundredth.
#[cfg(test)]
pub(crate) fn along(x: f64, y: f64, heading: f64, radius: Option<f64>, distance: f64) -> (f64, f64) {
    along_from(x, y, heading, sin_cos(heading), radius, distance)
}

/// [`along`] with the heading's `(sin, cos)` computed once for a whole row.
pub(crate) fn along_from(
    x: f64,
    y: f64,
    heading: f64,
    (sin_a, cos_a): (f64, f64),
    radius: Option<f64>,
    distance: f64,
) -> (f64, f64) {
    let (dx, dy) = match radius {
        None => (distance * cos_a, distance * sin_a),
        Some(radius) => {
            // On the circle: the heading has turned by distance/radius.
            let (sin_b, cos_b) = sin_cos(heading + distance / radius);
            (radius * (sin_b - sin_a), radius * (cos_a - cos_b))
        }
    };
    (round(x + dx), round(y + dy))
}

fn round(value: f64) -> f64 {
    (value * UNIT).round() / UNIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sines_and_cosines_match_the_platforms_within_a_few_ulps() {
        for step in -2000..=2000 {
            let x = f64::from(step) * 0.013;
            let (sin, cos) = sin_cos(x);
            assert!((sin - x.sin()).abs() < 4e-16, "sin {x}: {sin} vs {}", x.sin());
            assert!((cos - x.cos()).abs() < 4e-16, "cos {x}: {cos} vs {}", x.cos());
        }
    }

    #[test]
    fn a_curved_row_keeps_its_seats_on_one_circle_a_spacing_apart() {
        let (radius, spacing) = (100.0, 10.0);
        // Heading +x from the top of a circle centred 100 below (y grows downwards).
        let seats: Vec<(f64, f64)> =
            (0..20).map(|k| along(0.0, 0.0, 0.0, Some(radius), f64::from(k) * spacing)).collect();
        for &(x, y) in &seats {
            assert!(((x - 0.0).hypot(y - 100.0) - radius).abs() < 0.01, "({x}, {y})");
        }
        for pair in seats.windows(2) {
            let chord = (pair[1].0 - pair[0].0).hypot(pair[1].1 - pair[0].1);
            assert!((chord - spacing).abs() < 0.05, "{pair:?}");
        }
        assert_eq!(along(5.0, 7.0, core::f64::consts::FRAC_PI_2, None, 3.0), (5.0, 10.0));
    }
}
