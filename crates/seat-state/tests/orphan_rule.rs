//! The orphan rule (API.md "Box office (v3)") on the two-row hall, natively
//! and in headless Chromium: what strands a seat, `strict` and `lenient` refusals after availability, and
//! best available under each rule.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use serde_json::json;

use seat_state::{OrphanRule, Rejection, Rows, Show};
use support::hall::{hall, hold};

fn strand(seats: &[&str]) -> Rejection {
    Rejection::WouldStrand { seats: seats.iter().map(|seat| (*seat).to_owned()).collect() }
}

#[test]
fn strict_refuses_a_hold_that_leaves_a_single_seat_and_names_it() {
    let mut state = hall(json!({"orphanRule": "strict"}));
    // A1 would be alone between the row's end and A2.
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A2", "A3"]})), Err(strand(&["A1"])));
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A1", "A2"]})).unwrap(), ["A1", "A2"]);
    // A3 between A2 (held) and A4 would be alone; so would A8 at the row's end.
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A4", "A5", "A6", "A7"]})), Err(strand(&["A3", "A8"])));
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A3", "A4"]})).unwrap(), ["A3", "A4"]);
}

#[test]
fn the_seats_named_come_in_row_order_across_rows() {
    let mut state = hall(json!({"orphanRule": "strict"}));
    let refused = hold(&mut state, "ann", json!({"seats": ["B2", "A7", "A2"]})).unwrap_err();
    assert_eq!(refused, strand(&["A1", "A8", "B1"]));
    assert_eq!(refused.code(), "would_strand");
    assert_eq!(refused.status(), 409);
    assert_eq!(
        refused.message(),
        "This would leave A1, A8 and B1 as single seats on their own; pick seats beside them."
    );
    let wire = refused.to_wire(support::at(0));
    assert_eq!(wire.seats.as_deref(), Some(&["A1".to_owned(), "A8".to_owned(), "B1".to_owned()][..]));
    assert_eq!(Rejection::from_wire(&wire), Some(refused));
}

#[test]
fn availability_is_answered_before_stranding() {
    let mut state = hall(json!({"orphanRule": "strict"}));
    hold(&mut state, "ann", json!({"seats": ["A3", "A4"]})).unwrap();
    let refused = hold(&mut state, "bob", json!({"seats": ["A2", "A3"]})).unwrap_err();
    assert_eq!(refused, Rejection::SeatsTaken { seats: vec!["A3".into()] });
}

#[test]
fn a_seat_already_alone_is_not_newly_stranded() {
    let mut state = hall(json!({"orphanRule": "strict"}));
    let blocked = ["A2", "A4"].map(|id| seat_state::SeatId::parse(id).unwrap());
    let Ok(seat_state::Decision::Apply(change)) = state.decide_block(&blocked, "sightline") else { panic!() };
    state.apply(&change);
    // A1 and A3 are alone already: holding A5-A6 changes nothing for them.
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A5", "A6"]})).unwrap(), ["A5", "A6"]);
    // A7 would be newly alone (A6 held, A8 taken).
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A8"]})), Err(strand(&["A7"])));
    // Taking a seat that is alone strands nobody.
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A3"]})).unwrap(), ["A3"]);
}

#[test]
fn held_sold_blocked_and_channel_seats_are_not_free_neighbours() {
    // B7 and B8 are presale seats: for a request without the code, B6 is the row's end.
    let mut state = hall(json!({"orphanRule": "strict"}));
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["B4", "B5"]})), Err(strand(&["B6"])));
    // With the code, B6 has a free neighbour (B7), so nothing is stranded.
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["B4", "B5"], "channel": "SECRET"})).unwrap(), ["B4", "B5"]);
}

#[test]
fn a_gap_in_the_numbers_is_not_a_free_neighbour() {
    let seats: Vec<_> = [1, 2, 3, 5, 6]
        .iter()
        .map(|n| json!({"id": format!("A{n}"), "x": n * 10, "y": 0, "section": "S", "row": "A", "number": n}))
        .collect();
    let show =
        json!({"id": "gap", "name": "Gap", "orphanRule": "strict", "maxActiveHoldsPerHolder": 9, "seats": seats});
    let show = Show::parse(&serde_json::from_value(show).unwrap()).unwrap();
    let mut state = seat_state::ShowState::new(show);
    // A3 has no seat 4 beside it: taking A2 leaves it alone (and A1).
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A2"]})), Err(strand(&["A1", "A3"])));
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A5"]})), Err(strand(&["A6"])));
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A5", "A6"]})).unwrap(), ["A5", "A6"]);
}

#[test]
fn lenient_refuses_only_when_the_row_has_a_block_that_strands_none() {
    let mut state = hall(json!({"orphanRule": "lenient"}));
    // A1..A8 free: A1-A2 would strand nothing, so A2-A3 is refused.
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A2", "A3"]})), Err(strand(&["A1"])));
    hold(&mut state, "ann", json!({"seats": ["A1", "A2"]})).unwrap();
    hold(&mut state, "ann", json!({"seats": ["A5", "A6"]})).unwrap();
    // Left: A3 A4 | A7 A8. Three seats fit nowhere; one seat anywhere strands one,
    // so A3 alone is accepted even though it strands A4.
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A3"]})).unwrap(), ["A3"]);
    // A7 alone would strand A8, but A4 (left alone by A3) strands none: refused.
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A7"]})), Err(strand(&["A8"])));
}

#[test]
fn off_never_refuses_for_stranding() {
    let mut state = hall(json!({}));
    assert_eq!(state.show().orphan_rule, OrphanRule::Off);
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["A2"]})).unwrap(), ["A2"]);
}

#[test]
fn best_available_under_strict_picks_only_blocks_that_strand_none() {
    let mut state = hall(json!({"orphanRule": "strict", "focus": {"x": 45, "y": -20}}));
    // Row A: A2 and A7 held, so the free runs are A1 | A3..A6 | A8.
    hold(&mut state, "ann", json!({"seats": ["A1", "A2"]})).unwrap();
    hold(&mut state, "ann", json!({"seats": ["A7", "A8"]})).unwrap();
    // A3..A6: two seats in the middle strand A3 or A6; at either end they strand none.
    let picked = hold(&mut state, "bob", json!({"best": {"count": 2, "category": "a"}})).unwrap();
    assert!(picked == ["A3", "A4"] || picked == ["A5", "A6"], "{picked:?}");
    // Left: two adjacent seats; three would strand none only as a whole run: none.
    let refused = hold(&mut state, "cat", json!({"best": {"count": 3, "category": "a"}})).unwrap_err();
    assert_eq!(refused, Rejection::NoBlock { available: 2 });
    // One seat of a two-seat run strands the other: under strict nothing of 1 in row A.
    let refused = hold(&mut state, "cat", json!({"best": {"count": 1, "category": "a"}})).unwrap_err();
    assert_eq!(refused, Rejection::NoBlock { available: 2 }, "only the whole run of 2 can go");
}

#[test]
fn best_available_without_the_rule_prefers_a_block_that_strands_none() {
    for rule in ["off", "lenient"] {
        let mut state = hall(json!({"orphanRule": rule}));
        hold(&mut state, "ann", json!({"seats": ["A1", "A2"]})).unwrap();
        hold(&mut state, "ann", json!({"seats": ["A6"]})).unwrap();
        // Free: A3 A4 A5 | A7 A8. The nearest pair A4-A5 strands A3; A3-A4 strands A5 too.
        // A7-A8 strands none, so it wins despite the distance.
        let picked = hold(&mut state, "bob", json!({"best": {"count": 2, "category": "a"}})).unwrap();
        assert_eq!(picked, ["A7", "A8"], "under {rule}");
        // Free: A3 A4 A5. One seat at an end leaves a pair: A4 would strand both.
        let picked = hold(&mut state, "cat", json!({"best": {"count": 1, "category": "a"}})).unwrap();
        assert!(picked == ["A3"] || picked == ["A5"], "under {rule}: {picked:?}");
    }
}

#[test]
fn a_seat_of_another_category_beside_a_best_block_counts_as_free() {
    // One row: C1 in category b, C2..C4 in category a.
    let seats: Vec<_> = (1..=4)
        .map(|n| {
            json!({"id": format!("C{n}"), "x": n * 10, "y": 0, "section": "S", "row": "C", "number": n,
                   "category": if n == 1 { "b" } else { "a" }})
        })
        .collect();
    let show =
        json!({"id": "cats", "name": "Cats", "orphanRule": "strict", "seats": seats, "focus": {"x": 20, "y": 0}});
    let mut state = seat_state::ShowState::new(Show::parse(&serde_json::from_value(show).unwrap()).unwrap());
    // C2-C3 is nearest, but strands C1 (free, though not in the category): C3-C4 instead.
    assert_eq!(hold(&mut state, "ann", json!({"best": {"count": 2, "category": "a"}})).unwrap(), ["C3", "C4"]);
}

#[test]
fn a_shift_names_the_nearest_block_that_strands_none() {
    // One row of six, seat 6 sold: taking 2-3 strands 1.
    let places: Vec<_> = (1..=6).map(|n| Some(("S", "A", n))).collect();
    let rows = Rows::new(places);
    let free = |at: usize| at != 5;
    let taken = [1, 2];
    assert_eq!(rows.verdict(OrphanRule::Strict, &taken, &free), Err(vec![0]));
    let shift = rows.shift(0, &taken, &free).unwrap();
    assert_eq!((shift.from, shift.to, shift.by), (vec![1, 2], vec![0, 1], -1));
    // Lenient agrees the shift exists, so it refuses too.
    assert_eq!(rows.verdict(OrphanRule::Lenient, &taken, &free), Err(vec![0]));
    assert_eq!(rows.verdict(OrphanRule::Off, &taken, &free), Ok(()));
}
