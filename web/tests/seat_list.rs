//! The list picker's grouping: sections by category, rows by label.

#![allow(clippy::unwrap_used)]

use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

use seathold_web::seat_list::{ListRow, row_and_seat, sections};

wasm_bindgen_test_configure!(run_in_browser);

#[test]
fn seats_group_by_section_then_row_in_the_order_they_come() {
    let seats = [
        ("Row A, seat 1", Some("premium")),
        ("Row A, seat 2", Some("premium")),
        ("Row B, seat 1", Some("standard")),
        ("Row B, seat 2", Some("standard")),
        ("Box 1", None),
    ];
    let found = sections(seats);
    let names: Vec<&str> = found.iter().map(|section| section.name.as_str()).collect();
    assert_eq!(names, ["premium", "standard", "Seats"]);
    assert_eq!(found[0].rows, [ListRow { name: "Row A".into(), seats: vec![0, 1] }]);
    assert_eq!(found[1].rows, [ListRow { name: "Row B".into(), seats: vec![2, 3] }]);
    assert_eq!(found[2].rows, [ListRow { name: "Box 1".into(), seats: vec![4] }]);
}

#[test]
fn a_label_splits_into_its_row_and_seat_at_the_last_comma() {
    assert_eq!(row_and_seat("Row B, seat 8"), ("Row B", "seat 8"));
    assert_eq!(row_and_seat("Stalls, Row B, seat 8"), ("Stalls, Row B", "seat 8"));
    assert_eq!(row_and_seat("Box 1"), ("Box 1", "Box 1"));
}
