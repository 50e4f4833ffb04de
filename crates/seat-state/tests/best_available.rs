//! Best available and channels (API.md "Box office (v2)"), decided by
//! `ShowState` at one instant together with the hold.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use serde_json::{Value, json};

use seat_state::{Decision, HoldStatus, Rejection};
use support::hall::{hall, hold, order};
use support::{T0, at, hold_id, holder};

#[test]
fn the_best_block_is_the_one_nearest_the_stage() {
    let mut state = hall(json!({}));
    assert_eq!(hold(&mut state, "ann", json!({"holdId": "best-0001", "best": {"count": 2}})).unwrap(), ["A4", "A5"]);
    // B7 and B8 are the presale's: B4-B5 would strand B6, so B3-B4.
    assert_eq!(hold(&mut state, "bob", json!({"best": {"count": 2, "category": "b"}})).unwrap(), ["B3", "B4"]);
}

#[test]
fn a_block_that_would_strand_a_single_seat_loses_to_one_that_does_not() {
    let mut state = hall(json!({}));
    // A1..A3 free and A5..A8 free around a held A4: two seats nearest the
    // stage in A5-A6 would leave A7-A8 (two) — fine — but A2-A3 would strand A1.
    hold(&mut state, "ann", json!({"seats": ["A4"]})).unwrap();
    assert_eq!(hold(&mut state, "bob", json!({"best": {"count": 2, "category": "a"}})).unwrap(), ["A5", "A6"]);
    // Now A1..A3 and A7..A8: three together only as A1-A3; two without
    // stranding: A7-A8 or A1-A2 (strands A3) or A2-A3 (strands A1) → A7-A8.
    assert_eq!(hold(&mut state, "cat", json!({"best": {"count": 2, "category": "a"}})).unwrap(), ["A7", "A8"]);
}

#[test]
fn when_every_block_strands_a_seat_the_nearest_is_taken() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"seats": ["A1", "A5", "A6", "A7", "A8"]})).unwrap();
    assert_eq!(hold(&mut state, "bob", json!({"best": {"count": 2, "category": "a"}})).unwrap(), ["A3", "A4"]);
}

#[test]
fn no_block_that_large_is_not_enough_seats_with_the_largest_block() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"seats": ["A3", "A6"]})).unwrap();
    let refused = hold(&mut state, "bob", json!({"best": {"count": 3, "category": "a"}})).unwrap_err();
    assert_eq!(refused, Rejection::NoBlock { available: 2 });
    let wire = refused.to_wire(T0);
    assert_eq!((wire.error.as_str(), wire.available, wire.area), ("not_enough_seats", Some(2), None));
}

#[test]
fn channel_seats_are_picked_and_held_only_with_the_code() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"seats": ["B1", "B2", "B3", "B4", "B5"]})).unwrap();
    let refused = hold(&mut state, "bob", json!({"best": {"count": 2, "category": "b"}})).unwrap_err();
    assert_eq!(refused, Rejection::NoBlock { available: 1 }, "B6 alone: B7 and B8 are the presale's");
    assert_eq!(
        hold(&mut state, "bob", json!({"best": {"count": 2, "category": "b"}, "channel": "SECRET"})).unwrap(),
        ["B6", "B7"]
    );
}

#[test]
fn a_channel_seat_without_its_code_is_unavailable_before_it_is_taken() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"seats": ["B6"]})).unwrap();
    let refused = hold(&mut state, "bob", json!({"seats": ["B6", "B7"], "channel": "WRONG"})).unwrap_err();
    assert_eq!(refused, Rejection::SeatsUnavailable { seats: vec!["B7".into()] });
    assert_eq!((refused.code(), refused.status()), ("seats_unavailable", 409));
    assert_eq!(refused.to_wire(T0).seats, Some(vec!["B7".into()]));
    assert_eq!(
        hold(&mut state, "bob", json!({"seats": ["B6", "B7"], "channel": "SECRET"})).unwrap_err(),
        Rejection::SeatsTaken { seats: vec!["B6".into()] }
    );
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["B7"], "channel": "SECRET"})).unwrap(), ["B7"]);
}

#[test]
fn a_best_request_replays_as_the_hold_it_made() {
    let mut state = hall(json!({}));
    let body = json!({"holdId": "retry-0001", "best": {"count": 3, "category": "a"}});
    let first = hold(&mut state, "ann", body.clone()).unwrap();
    let version = state.version();
    assert_eq!(hold(&mut state, "ann", body).unwrap(), first);
    assert_eq!(state.version(), version, "nothing more is taken");
    let other = json!({"holdId": "retry-0001", "best": {"count": 2, "category": "a"}});
    assert_eq!(hold(&mut state, "ann", other).unwrap_err(), Rejection::IdempotencyMismatch);
    let someone_else = json!({"holdId": "retry-0001", "best": {"count": 3, "category": "a"}});
    assert_eq!(hold(&mut state, "bob", someone_else).unwrap_err(), Rejection::IdempotencyMismatch);
    assert_eq!(state.hold(&hold_id("retry-0001")).unwrap().status_at(at(0)), HoldStatus::Held);
}

#[test]
fn the_hold_limit_comes_before_the_search() {
    let mut state = hall(json!({"maxActiveHoldsPerHolder": 1}));
    hold(&mut state, "ann", json!({"seats": ["A1"]})).unwrap();
    assert_eq!(
        hold(&mut state, "ann", json!({"best": {"count": 9, "category": "a"}})).unwrap_err().code(),
        "invalid_seats"
    );
    assert_eq!(hold(&mut state, "ann", json!({"best": {"count": 2}})).unwrap_err(), Rejection::HoldLimit);
}

#[test]
fn a_best_request_is_checked_before_anything_is_decided() {
    let state = hall(json!({}));
    let reason = |body: Value| match state.parse_order(&order(body), hold_id("generated-1")) {
        Err(Rejection::InvalidBest { reason }) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason(json!({"seats": ["A1"], "best": {"count": 1}})).contains("not both"));
    assert_eq!(reason(json!({"best": {"count": 0}})), "best.count must be a whole number from 1 to 8.");
    assert_eq!(reason(json!({"best": {"count": "two"}})), "best.count must be a whole number from 1 to 8.");
    assert_eq!(reason(json!({"best": {"count": 1, "category": "c"}})), "This show has no category \"c\".");
    let bad_id = state.parse_order(&order(json!({"holdId": "x", "best": {"count": 1}})), hold_id("generated-1"));
    assert_eq!(bad_id.unwrap_err(), Rejection::InvalidHoldId);
}

#[test]
fn without_a_focus_the_stage_is_the_middle_of_the_front_edge() {
    let state = hall(json!({"focus": null}));
    assert_eq!((state.focus().x, state.focus().y), (45.0, 0.0));
}

#[test]
fn the_box_office_refusals_read_back_from_their_error_bodies() {
    for rejection in [
        Rejection::InvalidBest { reason: "best.count must be a whole number from 1 to 8.".into() },
        Rejection::NoBlock { available: 3 },
        Rejection::NoBlock { available: 0 },
        Rejection::SeatsUnavailable { seats: vec!["B7".into(), "B8".into()] },
    ] {
        let body = rejection.to_wire(T0);
        assert_eq!(Rejection::from_wire(&body), Some(rejection), "{}", body.error);
    }
    let named = Rejection::SeatsUnavailable { seats: vec!["B7".into()] }.naming_seats(|id| format!("seat {id}"));
    assert_eq!(named, Rejection::SeatsUnavailable { seats: vec!["seat B7".into()] });
}

#[test]
fn the_box_office_releases_anyones_hold_but_not_a_sold_one() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"holdId": "ann-hold-1", "seats": ["A1"]})).unwrap();
    let Ok(Decision::Apply(change)) = state.decide_operator_release(&hold_id("ann-hold-1"), at(1)) else { panic!() };
    state.apply(&change);
    assert_eq!(state.hold(&hold_id("ann-hold-1")).unwrap().status_at(at(1)), HoldStatus::Released);
    assert_eq!(state.decide_operator_release(&hold_id("ann-hold-1"), at(2)), Ok(Decision::Unchanged));
    hold(&mut state, "bob", json!({"holdId": "bob-hold-1", "seats": ["A2"]})).unwrap();
    let Ok(Decision::Apply(confirm)) = state.decide_confirm(&holder("bob"), &hold_id("bob-hold-1"), at(1)) else {
        panic!()
    };
    state.apply(&confirm);
    assert_eq!(state.decide_operator_release(&hold_id("bob-hold-1"), at(2)), Err(Rejection::AlreadyConfirmed));
    assert_eq!(state.decide_operator_release(&hold_id("nobody-123"), at(2)), Err(Rejection::NoHold));
}
