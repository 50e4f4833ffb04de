//! Blocked seats (API.md "Box office (v2)", SPEC rule 19): the box office
//! takes seats off sale; nobody may hold them, best available skips them,
//! and the facts say so.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use serde_json::json;

use seat_state::{Change, Decision, Rejection, SeatId, ShowState};
use support::at;
use support::hall::{hall, hold};

fn seats(ids: &[&str]) -> Vec<SeatId> {
    ids.iter().map(|id| SeatId::parse(id).unwrap()).collect()
}

fn block(state: &mut ShowState, ids: &[&str]) -> Decision {
    let decision = state.decide_block(&seats(ids), "wheelchair places").unwrap();
    if let Decision::Apply(change) = &decision {
        state.apply(change);
    }
    decision
}

fn unblock(state: &mut ShowState, ids: &[&str]) -> Decision {
    let decision = state.decide_unblock(&seats(ids)).unwrap();
    if let Decision::Apply(change) = &decision {
        state.apply(change);
    }
    decision
}

#[test]
fn a_blocked_seat_is_unavailable_before_it_is_taken_and_free_again_once_unblocked() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"seats": ["A1"]})).unwrap();
    block(&mut state, &["A2"]);
    let refused = hold(&mut state, "bob", json!({"seats": ["A1", "A2", "A3"]})).unwrap_err();
    assert_eq!(refused, Rejection::SeatsUnavailable { seats: vec!["A2".into()] }, "before seats_taken");
    unblock(&mut state, &["A2"]);
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["A2", "A3"]})).unwrap(), ["A2", "A3"]);
}

#[test]
fn a_channel_code_does_not_open_a_blocked_channel_seat() {
    let mut state = hall(json!({}));
    block(&mut state, &["B7"]);
    let refused = hold(&mut state, "bob", json!({"seats": ["B7"], "channel": "SECRET"})).unwrap_err();
    assert_eq!(refused, Rejection::SeatsUnavailable { seats: vec!["B7".into()] });
}

#[test]
fn best_available_skips_blocked_seats() {
    let mut state = hall(json!({}));
    block(&mut state, &["A4", "A5"]);
    let picked = hold(&mut state, "ann", json!({"best": {"count": 3, "category": "a"}})).unwrap();
    assert!(picked.iter().all(|seat| seat != "A4" && seat != "A5"), "picked {picked:?}");
    assert_eq!(picked.len(), 3);
}

#[test]
fn blocking_leaves_holds_and_sales_made_before_it_standing() {
    let mut state = hall(json!({}));
    hold(&mut state, "ann", json!({"seats": ["A1"]})).unwrap();
    block(&mut state, &["A1"]);
    let fact = &state.seat_facts(None)[0];
    assert_eq!((fact.id.as_str(), fact.blocked, fact.hold_expires_at.is_some()), ("A1", true, true));
    assert_eq!(state.hold(&support::hold_id("generated-0")).unwrap().seats.len(), 1);
}

#[test]
fn blocking_again_is_unchanged_and_only_new_seats_are_written() {
    let mut state = hall(json!({}));
    block(&mut state, &["A1", "A2"]);
    let version = state.version();
    assert_eq!(block(&mut state, &["A2", "A1"]), Decision::Unchanged);
    assert_eq!(state.version(), version);
    let Decision::Apply(Change::Blocked { seats: written, reason }) = block(&mut state, &["A2", "A3", "A3"]) else {
        panic!("A3 is new")
    };
    assert_eq!((written, reason.as_str()), (seats(&["A3"]), "wheelchair places"));
    assert_eq!(state.blocked_seats().map(ToString::to_string).collect::<Vec<_>>(), ["A1", "A2", "A3"]);
    assert_eq!(unblock(&mut state, &["A4"]), Decision::Unchanged, "A4 was never blocked");
}

#[test]
fn unknown_or_no_seats_are_invalid_and_change_nothing() {
    let state = hall(json!({}));
    let unknown = state.decide_block(&seats(&["A1", "Z9", "Q1"]), "").unwrap_err();
    assert_eq!(unknown, Rejection::InvalidSeats { seats: vec!["Z9".into(), "Q1".into()] });
    assert_eq!(state.decide_unblock(&[]).unwrap_err(), Rejection::InvalidSeats { seats: vec![] });
    assert_eq!(state.blocked_seats().count(), 0);
}

#[test]
fn a_stale_block_or_unblock_changes_nothing() {
    let mut state = hall(json!({}));
    let Decision::Apply(first) = state.decide_block(&seats(&["A1"]), "").unwrap() else { panic!() };
    state.apply(&first);
    let version = state.version();
    state.apply(&first);
    state.apply(&Change::Unblocked { seats: seats(&["A1", "A2"]) });
    assert_eq!((state.version(), state.is_blocked(&seats(&["A1"])[0])), (version, true));
}

#[test]
fn the_facts_carry_blocked_and_channel_and_a_block_touches_its_seats() {
    let mut state = hall(json!({}));
    let Decision::Apply(change) = state.decide_block(&seats(&["B8", "A1"]), "").unwrap() else { panic!() };
    state.apply(&change);
    let event = state.change_event(&change, at(1));
    let touched: Vec<_> = event.seats.iter().map(|fact| (fact.id.as_str(), fact.blocked)).collect();
    assert_eq!(touched, [("B8", true), ("A1", true)]);
    assert_eq!(event.seats[0].channel.as_deref(), Some("presale"));
    let wire = serde_json::to_value(&event.seats[1]).unwrap();
    assert_eq!(wire, json!({"id": "A1", "sold": false, "holdExpiresAt": null, "blocked": true}));
    let free = serde_json::to_value(&state.seat_facts(None)[1]).unwrap();
    assert_eq!(free, json!({"id": "A2", "sold": false, "holdExpiresAt": null, "mine": false}), "no flags when off");
}
