//! Runs natively and, through wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use seat_state::wire::{SeatMap, ShowInput};
use seat_state::{
    ClockOffset, ClockSample, HoldId, LatePolicy, LocalMillis, PlaceId, SeatState, ServerMillis, Show, ShowId,
    seat_state,
};

#[test]
fn a_hold_counts_until_its_deadline_and_not_at_it() {
    let deadline = Some(ServerMillis(10_000));
    assert_eq!(seat_state(false, deadline, ServerMillis(9_999)), SeatState::Held);
    assert_eq!(seat_state(false, deadline, ServerMillis(10_000)), SeatState::Free);
    assert_eq!(seat_state(false, None, ServerMillis(0)), SeatState::Free);
}

#[test]
fn sold_wins_over_any_hold() {
    assert_eq!(seat_state(true, Some(ServerMillis(10_000)), ServerMillis(0)), SeatState::Sold);
    assert_eq!(seat_state(true, None, ServerMillis(0)), SeatState::Sold);
}

#[test]
fn clock_offset_assumes_the_server_read_its_clock_mid_trip() {
    let offset = ClockOffset::from_sample(ClockSample {
        sent: LocalMillis(1_000),
        server: ServerMillis(500_000),
        received: LocalMillis(1_201),
    });
    assert_eq!(offset.offset_millis, 500_000 - 1_100);
    assert_eq!(offset.uncertainty_millis, 101);
    assert_eq!(offset.server_now(LocalMillis(1_100)), ServerMillis(500_000));
    assert_eq!(offset.local_at(ServerMillis(500_000)), LocalMillis(1_100));
}

#[test]
fn clock_offset_handles_a_server_behind_the_browser() {
    let offset = ClockOffset::from_sample(ClockSample {
        sent: LocalMillis(900_000),
        server: ServerMillis(300_010),
        received: LocalMillis(900_020),
    });
    assert_eq!(offset.offset_millis, -600_000);
}

#[test]
fn a_local_clock_jumping_back_mid_trip_is_not_a_negative_round_trip() {
    let offset = ClockOffset::from_sample(ClockSample {
        sent: LocalMillis(5_000),
        server: ServerMillis(7_000),
        received: LocalMillis(4_000),
    });
    assert_eq!(offset.uncertainty_millis, 0);
    assert_eq!(offset.offset_millis, 2_000);
}

#[test]
fn ids_are_parsed_at_the_edge() {
    assert!(ShowId::parse("impro-2026-11-14").is_ok());
    assert!(ShowId::parse("-leading-dash").is_err());
    assert!(ShowId::parse("Upper").is_err());
    assert!(ShowId::parse(&"a".repeat(65)).is_err());
    assert!(PlaceId::parse("B7").is_ok());
    assert!(PlaceId::parse("_B7").is_err());
    assert!(PlaceId::parse(&"a".repeat(33)).is_err());
    assert!(HoldId::parse("hold-123").is_ok());
    assert!(HoldId::parse("short").is_err());
    let error = PlaceId::parse("B 7").unwrap_err();
    assert!(error.to_string().contains("\"B 7\""), "{error}");
}

fn api_md_show() -> ShowInput {
    serde_json::from_str(
        r#"{
          "id": "impro-2026-11-14",
          "name": "Improv night",
          "holdSeconds": 600, "extensionSeconds": 300, "maxExtensions": 2,
          "maxSeatsPerHold": 8, "maxActiveHoldsPerHolder": 1,
          "latePolicy": "reject",
          "seats": [{"id": "B7", "x": 70, "y": 20, "label": "Row B, seat 7", "category": "standard"}],
          "areas": [{"id": "standing", "name": "Standing", "capacity": 50}]
        }"#,
    )
    .expect("API.md's example parses")
}

#[test]
fn api_md_show_example_parses_and_round_trips() {
    let show = Show::parse(&api_md_show()).unwrap();
    assert_eq!(show.rules.late_policy, LatePolicy::Reject);
    assert_eq!(show.seats[0].label, "Row B, seat 7");
    let wire = show.to_wire();
    let json = serde_json::to_value(&wire).unwrap();
    assert_eq!(json["seats"][0]["x"], 70.0);
    assert_eq!(json["maxSeatsPerHold"], 8);
    let again: ShowInput = serde_json::from_value(json).unwrap();
    assert_eq!(Show::parse(&again).unwrap(), show);
}

#[test]
fn omitted_fields_take_the_documented_defaults() {
    let minimal: ShowInput =
        serde_json::from_str(r#"{"id": "s1", "name": "Show", "seats": [{"id": "A1", "x": 0, "y": 0}]}"#).unwrap();
    let show = Show::parse(&minimal).unwrap();
    assert_eq!(show, Show { rules: Default::default(), ..show.clone() });
    assert_eq!((show.rules.hold_seconds, show.rules.max_extensions), (600, 2));
    assert_eq!(show.seats[0].label, "A1");
}

#[test]
fn invalid_shows_name_their_problem() {
    type Case = (&'static str, fn(&mut ShowInput));
    let cases: [Case; 6] = [
        ("id is required", |s| s.id = None),
        ("holdSeconds", |s| s.hold_seconds = Some(0)),
        ("latePolicy", |s| s.late_policy = Some("maybe".into())),
        ("used twice", |s| s.areas.as_mut().unwrap()[0].id = "B7".into()),
        ("capacity", |s| s.areas.as_mut().unwrap()[0].capacity = 0),
        ("at least one seat or area", |s| {
            s.seats = Some(vec![]);
            s.areas = None;
        }),
    ];
    for (expected, break_it) in cases {
        let mut input = api_md_show();
        break_it(&mut input);
        let error = Show::parse(&input).unwrap_err();
        assert!(error.0.contains(expected), "{expected:?} not in {error}");
    }
}

#[test]
fn api_md_seat_map_example_round_trips() {
    let text = r#"{
      "showId": "impro-2026-11-14", "serverTime": 1764460000000, "version": 42,
      "seats": [{"id": "B7", "sold": false, "holdExpiresAt": 1764460300000, "mine": false}],
      "areas": [{"id": "standing", "capacity": 50, "sold": 10,
                 "holds": [{"quantity": 2, "expiresAt": 1764460300000, "mine": false}]}]
    }"#;
    let map: SeatMap = serde_json::from_str(text).unwrap();
    assert_eq!(map.seats[0].hold_expires_at, Some(1_764_460_300_000));
    let back: serde_json::Value = serde_json::to_value(&map).unwrap();
    assert_eq!(back, serde_json::from_str::<serde_json::Value>(text).unwrap());
}
