//! The operator's page's small readings: seat ids typed, ages and deadlines.

use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

use seathold_web::admin::{duration, seat_ids};

wasm_bindgen_test_configure!(run_in_browser);

#[test]
fn seat_ids_split_on_commas_and_spaces() {
    assert_eq!(seat_ids(" A1, A2,,B7  C3 "), ["A1", "A2", "B7", "C3"]);
    assert!(seat_ids(" , ").is_empty());
}

#[test]
fn durations_read_as_a_clock() {
    assert_eq!(duration(0), "0:00");
    assert_eq!(duration(61_900), "1:01");
    assert_eq!(duration(3_723_000), "1:02:03");
    assert_eq!(duration(-5_000), "0:00");
}
