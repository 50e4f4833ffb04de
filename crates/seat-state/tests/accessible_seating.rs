//! Accessible seating (API.md "Box office (v3)"), natively and in headless
//! Chromium: wheelchair places and companion seats are checked in the
//! definition, held only by requests that ask for access until
//! `accessReleaseAt`, picked in pairs by best available, and named in the
//! seat facts.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use serde_json::{Value, json};

use seat_state::wire::ShowInput;
use seat_state::{Access, Decision, Rejection, ServerMillis, Show, ShowState};
use support::hall::{hold_at as hold, order};
use support::{at, hold_id, holder};

/// Row W: W1 companion of W2, W2 and W3 wheelchair places, W4 companion
/// of W3, W5..W8 plain; row A: A1..A8 plain, far behind it. The stage is
/// in front of W2, a little closer to it than to W3. `extra` overrides show
/// fields.
fn venue(extra: Value) -> Value {
    let mut seats = Vec::new();
    for (r, row) in ["W", "A"].iter().enumerate() {
        for n in 1..=8 {
            let mut seat = json!({"id": format!("{row}{n}"), "x": n * 10, "y": r * 100, "section": "S", "row": row,
                                  "number": n});
            if *row == "W" {
                match n {
                    2 | 3 => seat["access"] = json!("wheelchair"),
                    1 => (seat["access"], seat["companionOf"]) = (json!("companion"), json!("W2")),
                    4 => (seat["access"], seat["companionOf"]) = (json!("companion"), json!("W3")),
                    _ => {}
                }
            }
            seats.push(seat);
        }
    }
    let mut show = json!({"id": "access", "name": "Access", "maxActiveHoldsPerHolder": 9, "seats": seats,
                          "focus": {"x": 24, "y": -10}});
    for (key, value) in extra.as_object().unwrap() {
        show[key] = value.clone();
    }
    show
}

fn parse(show: Value) -> Result<Show, String> {
    Show::parse(&serde_json::from_value::<ShowInput>(show).unwrap()).map_err(|invalid| invalid.0)
}

fn state(extra: Value) -> ShowState {
    ShowState::new(parse(venue(extra)).unwrap())
}

#[test]
fn access_and_companions_are_checked_in_the_definition() {
    let seat = |field: &str, value: Value| {
        let mut show = venue(json!({}));
        show["seats"][9][field] = value;
        parse(show).unwrap_err()
    };
    assert_eq!(
        seat("access", json!("ramp")),
        "seat \"A2\" access must be \"wheelchair\" or \"companion\", not \"ramp\""
    );
    assert_eq!(seat("companionOf", json!("W2")), "seat \"A2\" has companionOf but is not a companion seat");
    assert_eq!(seat("access", json!("companion")), "seat \"A2\" is a companion seat and needs companionOf");
    let mut show = venue(json!({}));
    show["seats"][0]["companionOf"] = json!("W5");
    assert_eq!(parse(show).unwrap_err(), "seat \"W1\" companionOf \"W5\" names no wheelchair seat of the show");
    assert_eq!(
        parse(venue(json!({"orphanRule": "sometimes"}))).unwrap_err(),
        "orphanRule must be \"off\", \"lenient\" or \"strict\", not \"sometimes\""
    );
    let show = parse(venue(json!({"accessReleaseAt": 5}))).unwrap();
    assert_eq!(show.seats[0].access, Some(Access::Companion { of: seat_state::SeatId::parse("W2").unwrap() }));
    assert_eq!(show.access_release_at, Some(ServerMillis(5)));
}

#[test]
fn the_definition_and_the_seat_facts_carry_access() {
    let state = state(json!({"orphanRule": "lenient", "accessReleaseAt": 1_764_460_060_000_i64}));
    let wire = state.show().to_wire().for_customers();
    assert_eq!(
        (wire.seats[0].access.as_deref(), wire.seats[0].companion_of.as_deref()),
        (Some("companion"), Some("W2"))
    );
    assert_eq!((wire.seats[1].access.as_deref(), wire.seats[1].companion_of.as_deref()), (Some("wheelchair"), None));
    assert_eq!(wire.seats[4].access, None);
    assert_eq!((wire.orphan_rule.as_str(), wire.access_release_at), ("lenient", Some(1_764_460_060_000)));
    let json = serde_json::to_value(&wire).unwrap();
    assert_eq!(parse(json).unwrap(), *state.show(), "the definition reads back the same");
    let facts = state.seat_map(None, at(0)).seats;
    let access: Vec<Option<&str>> = facts.iter().take(5).map(|fact| fact.access.as_deref()).collect();
    assert_eq!(access, [Some("companion"), Some("wheelchair"), Some("wheelchair"), Some("companion"), None]);
    let json = serde_json::to_value(&facts[4]).unwrap();
    assert_eq!(json.get("access"), None, "omitted for a plain seat: {json}");
}

#[test]
fn access_seats_are_held_only_by_a_request_that_asks_until_released() {
    let mut state = state(json!({"accessReleaseAt": at(60).0}));
    let refused = hold(&mut state, "ann", json!({"seats": ["W1", "W2", "W5"]}), at(0)).unwrap_err();
    assert_eq!(refused, Rejection::SeatsUnavailable { seats: vec!["W1".into(), "W2".into()] });
    let refused = hold(&mut state, "ann", json!({"seats": ["W3"], "access": false}), at(59)).unwrap_err();
    assert_eq!(refused, Rejection::SeatsUnavailable { seats: vec!["W3".into()] });
    assert_eq!(hold(&mut state, "ann", json!({"seats": ["W1", "W2"], "access": true}), at(0)).unwrap(), ["W1", "W2"]);
    // From accessReleaseAt on they sell like any seat.
    assert_eq!(hold(&mut state, "bob", json!({"seats": ["W3", "W4"]}), at(60)).unwrap(), ["W3", "W4"]);
}

#[test]
fn without_a_release_time_access_seats_are_kept_for_good() {
    let mut state = state(json!({}));
    let refused = hold(&mut state, "ann", json!({"seats": ["W2"]}), at(1_000_000)).unwrap_err();
    assert_eq!(refused, Rejection::SeatsUnavailable { seats: vec!["W2".into()] });
}

#[test]
fn plain_best_available_skips_access_seats_until_released() {
    let mut state = state(json!({"accessReleaseAt": at(60).0}));
    // The stage is in front of W2, but W1..W4 are kept: W5-W6 is the nearest plain pair.
    assert_eq!(hold(&mut state, "ann", json!({"best": {"count": 2}}), at(0)).unwrap(), ["W5", "W6"]);
    // Released, W1-W2 is nearest of the pairs that strand no seat.
    assert_eq!(hold(&mut state, "bob", json!({"best": {"count": 2}}), at(60)).unwrap(), ["W1", "W2"]);
}

#[test]
fn best_available_with_wheelchair_places_holds_each_with_its_companion() {
    let mut state = state(json!({}));
    let picked = hold(&mut state, "ann", json!({"best": {"count": 2, "wheelchair": 1}}), at(0)).unwrap();
    assert_eq!(picked, ["W1", "W2"], "the place nearest the stage with its companion");
    // One place, its companion and one more seat.
    let picked = hold(&mut state, "bob", json!({"best": {"count": 3, "wheelchair": 1}}), at(0)).unwrap();
    assert_eq!(picked, ["W3", "W4", "W5"]);
    let refused = hold(&mut state, "cat", json!({"best": {"count": 2, "wheelchair": 1}}), at(0)).unwrap_err();
    assert_eq!(refused, Rejection::NoBlock { available: 0 }, "no place with a companion is left");
}

#[test]
fn two_wheelchair_places_come_with_two_companions_and_replay_the_same() {
    let mut state = state(json!({}));
    let body = json!({"holdId": "wheels-01", "best": {"count": 4, "wheelchair": 2}});
    assert_eq!(hold(&mut state, "ann", body.clone(), at(0)).unwrap(), ["W1", "W2", "W3", "W4"]);
    let request = state.parse_order(&order(body), hold_id("unused-1")).unwrap();
    assert_eq!(state.decide_create(&holder("ann"), &request, at(1)), Ok(Decision::Unchanged));
}

#[test]
fn wheelchair_places_must_fit_with_their_companions_in_the_count() {
    let mut state = state(json!({}));
    for (count, wheelchair) in [(3, json!(2)), (2, json!(-1)), (2, json!(0.5)), (2, json!("one"))] {
        let refused = hold(&mut state, "ann", json!({"best": {"count": count, "wheelchair": wheelchair}}), at(0));
        let Err(Rejection::InvalidBest { reason }) = refused else { panic!("{refused:?}") };
        assert!(reason.starts_with("best.wheelchair must be a whole number from 0 to"), "{reason}");
    }
}
