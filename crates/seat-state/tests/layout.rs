//! The map's layout of curved rows (the demo arena's): the pitch is measured
//! along the row and a row's name sits a pitch before its first seat, along
//! the row, named by the row alone. Runs natively and in headless Chromium.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use seat_state::drawing::layout::Layout;

#[test]
fn a_curved_rows_pitch_and_name_follow_the_row() {
    // Eight seats on a circle of radius 100 about the origin, 0.12 rad apart.
    let seats: Vec<(f64, f64, String)> = (0..8)
        .map(|k| {
            let angle = f64::from(k) * 0.12;
            (100.0 * angle.sin(), 100.0 * angle.cos(), format!("Section 101, row 3, seat {}", k + 1))
        })
        .collect();
    let layout = Layout::new(seats.iter().map(|(x, y, label)| (*x, *y, label.as_str())));
    let chord = 200.0 * 0.06_f64.sin();
    assert!((layout.pitch() - chord).abs() < 0.01, "along the row: {} against {chord}", layout.pitch());
    let labels = layout.row_labels(|seat| seats[seat].1);
    assert_eq!(labels.len(), 1);
    assert_eq!(labels[0].text, "3", "the row's own name");
    // One pitch before seat 1, continuing the row's line from seat 2.
    let (label, pitch) = (&labels[0], layout.pitch());
    let from = |seat: usize| (label.x - seats[seat].0).hypot(label.y - seats[seat].1);
    assert!((from(0) - pitch).abs() < 0.01, "a pitch from seat 1: {label:?}");
    assert!((from(1) - 2.0 * pitch).abs() < 0.01, "beyond seat 1 from seat 2: {label:?}");
}
