//! Validation of hold requests and the one code/status/sentence table.
//! Runs natively and, through wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use seat_state::wire::HoldRequestBody;
use seat_state::{HoldRequest, Rejection, ServerMillis, ShowState};
use support::{hold_id, theatre};

/// Parses a JSON body both ways (from the show, and from its state) and
/// checks they agree.
fn parse(json: &str) -> Result<HoldRequest, Rejection> {
    let show = theatre("");
    let body: HoldRequestBody = serde_json::from_str(json).expect("the body is JSON of the right shape");
    let by_show = HoldRequest::parse(&body, &show, hold_id("server-made-1"));
    let by_state = ShowState::new(show).parse_request(&body, hold_id("server-made-1"));
    assert_eq!(by_show, by_state, "{json}");
    by_show
}

fn invalid_seats(seats: &[&str]) -> Result<HoldRequest, Rejection> {
    Err(Rejection::InvalidSeats { seats: seats.iter().map(|s| (*s).to_owned()).collect() })
}

fn invalid_quantity(area: &str) -> Result<HoldRequest, Rejection> {
    Err(Rejection::InvalidQuantity { area: Some(area.to_owned()) })
}

#[test]
fn a_valid_request_keeps_seat_order_and_sorts_areas() {
    let request = parse(r#"{"holdId": "client-01", "seats": ["B2", "A1"], "areas": {"standing": 2}}"#).unwrap();
    assert_eq!(request.hold_id.as_str(), "client-01");
    assert_eq!(request.seats.iter().map(|s| s.as_str()).collect::<Vec<_>>(), ["B2", "A1"]);
    assert_eq!(request.areas[0].0.as_str(), "standing");
    assert_eq!(request.areas[0].1.get(), 2);
}

#[test]
fn the_server_makes_the_hold_id_when_absent() {
    assert_eq!(parse(r#"{"seats": ["A1"]}"#).unwrap().hold_id.as_str(), "server-made-1");
}

#[test]
fn api_md_example_body_has_a_hold_id_outside_the_pattern() {
    let example = r#"{"holdId": "optional client id", "seats": ["B7", "B8"], "areas": {"standing": 2}}"#;
    assert_eq!(parse(example), Err(Rejection::InvalidHoldId));
    for bad in ["short", "has space1", &"x".repeat(65), "ümlaut-01"] {
        let json = format!(r#"{{"holdId": {bad:?}, "seats": ["A1"]}}"#);
        assert_eq!(parse(&json), Err(Rejection::InvalidHoldId), "{bad}");
    }
}

#[test]
fn every_unknown_or_duplicate_seat_is_named_once_in_request_order() {
    assert_eq!(
        parse(r#"{"seats": ["Z9", "A1", "B 7", "A1", "Z9", "standing", "A2"]}"#),
        invalid_seats(&["Z9", "A1", "B 7", "standing"])
    );
}

#[test]
fn an_empty_request_is_invalid_seats_without_ids() {
    for json in [r#"{}"#, r#"{"seats": []}"#, r#"{"seats": [], "areas": {}}"#] {
        assert_eq!(parse(json), invalid_seats(&[]), "{json}");
    }
}

#[test]
fn more_places_than_allowed_names_every_requested_seat() {
    // maxSeatsPerHold is 6: seats plus area quantities.
    assert!(parse(r#"{"seats": ["A1", "A2"], "areas": {"standing": 4}}"#).is_ok());
    assert_eq!(parse(r#"{"seats": ["A1", "A2"], "areas": {"standing": 5}}"#), invalid_seats(&["A1", "A2"]));
    assert_eq!(parse(r#"{"areas": {"standing": 7}}"#), invalid_seats(&[]));
    assert_eq!(parse(r#"{"areas": {"standing": 99999999999999999999}}"#), invalid_seats(&[]));
}

#[test]
fn a_quantity_must_be_a_whole_number_of_at_least_one_for_a_known_area() {
    for value in ["0", "-1", "2.5", "\"2\"", "null", "true", "[1]", "{\"n\": 1}", "-99999999999999999999"] {
        let json = format!(r#"{{"seats": ["A1"], "areas": {{"standing": {value}}}}}"#);
        assert_eq!(parse(&json), invalid_quantity("standing"), "{value}");
    }
    assert_eq!(parse(r#"{"areas": {"balcony": 1}}"#), invalid_quantity("balcony"));
    assert_eq!(parse(r#"{"areas": {"A1": 1}}"#), invalid_quantity("A1"));
    // JSON has one number type: 2.0 is the integer 2, as in JSON Schema.
    assert_eq!(parse(r#"{"areas": {"standing": 2.0}}"#).unwrap().areas[0].1.get(), 2);
}

#[test]
fn validation_runs_hold_id_then_seats_then_quantities_then_size() {
    let all_wrong = r#"{"holdId": "x", "seats": ["Z9"], "areas": {"standing": 0}}"#;
    assert_eq!(parse(all_wrong), Err(Rejection::InvalidHoldId));
    assert_eq!(parse(r#"{"seats": ["Z9"], "areas": {"standing": 0}}"#), invalid_seats(&["Z9"]));
    assert_eq!(
        parse(r#"{"seats": ["A1", "A2", "A3", "A4", "A5", "B1", "B2"], "areas": {"standing": 0}}"#),
        invalid_quantity("standing")
    );
}

#[test]
fn a_body_of_the_wrong_shape_is_a_parse_error_not_a_rejection() {
    for json in [r#"{"seats": "A1"}"#, r#"{"seats": [1]}"#, r#"{"areas": []}"#, r#"{"holdId": 7}"#, "[]"] {
        assert!(serde_json::from_str::<HoldRequestBody>(json).is_err(), "{json}");
    }
}

#[test]
fn each_rejection_has_its_api_code_status_and_one_sentence() {
    let cases = [
        (Rejection::InvalidSeats { seats: vec![] }, "invalid_seats", 422),
        (Rejection::InvalidQuantity { area: None }, "invalid_quantity", 422),
        (Rejection::InvalidHoldId, "invalid_hold_id", 422),
        (Rejection::IdempotencyMismatch, "idempotency_mismatch", 409),
        (Rejection::HoldLimit, "hold_limit", 429),
        (Rejection::SeatsTaken { seats: vec!["B8".into()] }, "seats_taken", 409),
        (Rejection::NotEnoughSeats { area: "standing".into(), available: 0 }, "not_enough_seats", 409),
        (Rejection::NoHold, "no_hold", 404),
        (Rejection::HoldExpired, "hold_expired", 410),
        (Rejection::HoldReleased, "hold_released", 410),
        (Rejection::AlreadyConfirmed, "already_confirmed", 409),
        (Rejection::ExtensionLimit, "extension_limit", 409),
    ];
    for (rejection, code, status) in cases {
        assert_eq!((rejection.code(), rejection.status()), (code, status));
        let message = rejection.message();
        assert!(message.ends_with('.') && message.matches(". ").count() == 0, "{message}");
        assert_eq!(rejection.to_string(), message);
        let body = rejection.to_wire(ServerMillis(42));
        assert_eq!((body.error.as_str(), body.server_time), (code, 42));
    }
    assert_eq!(Rejection::SeatsTaken { seats: vec!["B8".into()] }.message(), "B8 was just taken.");
    let three = Rejection::SeatsTaken { seats: vec!["B6".into(), "B7".into(), "B8".into()] };
    assert_eq!(three.message(), "B6, B7 and B8 were just taken.");
}

#[test]
fn error_bodies_carry_the_extra_fields_of_their_code() {
    let json = |r: Rejection| serde_json::to_value(r.to_wire(ServerMillis(7))).unwrap();
    let taken = json(Rejection::SeatsTaken { seats: vec!["B7".into(), "B8".into()] });
    assert_eq!(taken["seats"], serde_json::json!(["B7", "B8"]));
    let short = json(Rejection::NotEnoughSeats { area: "standing".into(), available: 3 });
    assert_eq!((short["area"].as_str(), short["available"].as_i64()), (Some("standing"), Some(3)));
    let empty = json(Rejection::InvalidSeats { seats: vec![] });
    assert!(empty.get("seats").is_none(), "{empty}");
    assert_eq!(json(Rejection::InvalidSeats { seats: vec!["Z9".into()] })["seats"][0], "Z9");
    assert_eq!(json(Rejection::HoldLimit)["serverTime"], 7);
}
