//! The wire bodies against API.md's examples. Runs natively and, through
//! wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use seat_state::wire::{ChangeEvent, ErrorBody, HoldBody, HoldList, HoldRequestBody, RequestedQuantity, SessionBody};
use seat_state::{HoldStatus, Rejection, ServerMillis};
use support::{Desk, at, theatre};

/// Parses `text` as `T`, writes it back, and checks nothing was lost.
fn round_trip<T: Serialize + DeserializeOwned>(text: &str) -> T {
    let parsed: T = serde_json::from_str(text).expect("parses");
    let back = serde_json::to_value(&parsed).expect("serializes");
    assert_eq!(back, serde_json::from_str::<Value>(text).expect("JSON"));
    parsed
}

#[test]
fn api_md_hold_request_round_trips() {
    let body: HoldRequestBody =
        round_trip(r#"{"holdId": "optional client id", "seats": ["B7", "B8"], "areas": {"standing": 2}}"#);
    assert_eq!(body.areas["standing"], RequestedQuantity::Integer(2));
    let minimal: HoldRequestBody = serde_json::from_str(r#"{"areas": {"standing": 1}}"#).unwrap();
    assert_eq!((minimal.hold_id, minimal.seats.len()), (None, 0));
}

#[test]
fn a_session_round_trips() {
    let session: SessionBody = round_trip(r#"{"token": "c2VjcmV0", "holderId": "h-1", "serverTime": 1764460000000}"#);
    assert_eq!(session.holder_id, "h-1");
}

#[test]
fn a_hold_and_a_hold_list_round_trip() {
    let hold = r#"{"holdId": "client-01", "showId": "impro-2026-11-14", "seats": ["B7", "B8"],
                   "areas": {"standing": 2}, "status": "HELD", "expiresAt": 1764460600000,
                   "extensions": 0, "late": false, "serverTime": 1764460000000}"#;
    let body: HoldBody = round_trip(hold);
    assert_eq!(HoldStatus::parse(&body.status), Some(HoldStatus::Held));
    let list: HoldList = round_trip(&format!(r#"{{"holds": [{hold}], "serverTime": 1764460000001}}"#));
    assert_eq!(list.holds[0], body);
}

#[test]
fn api_md_change_event_round_trips() {
    let event: ChangeEvent = round_trip(
        r#"{"version": 43, "serverTime": 1764460000000,
            "seats": [{"id": "B7", "sold": false, "holdExpiresAt": 1764460300000}],
            "areas": [{"id": "standing", "capacity": 50, "sold": 10,
                       "holds": [{"quantity": 2, "expiresAt": 1764460300000}]}]}"#,
    );
    assert_eq!(event.seats[0].mine, None);
}

#[test]
fn a_hold_answers_with_every_api_md_field() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "client-01", &["A2", "A1"], &[("standing", 2)], at(0)).unwrap();
    let hold = desk.state.hold(&support::hold_id("client-01")).unwrap();
    let json = serde_json::to_value(hold.to_wire(&desk.state.show().id, at(600))).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "holdId": "client-01", "showId": "theatre", "seats": ["A2", "A1"],
            "areas": {"standing": 2}, "status": "EXPIRED", "expiresAt": at(600).0,
            "extensions": 0, "late": false, "serverTime": at(600).0
        })
    );
}

#[test]
fn statuses_use_their_wire_names() {
    for status in [HoldStatus::Held, HoldStatus::Confirmed, HoldStatus::Released, HoldStatus::Expired] {
        assert_eq!(HoldStatus::parse(status.as_str()), Some(status));
        assert_eq!(status.as_str(), status.as_str().to_uppercase());
    }
    assert_eq!(HoldStatus::parse("held"), None);
}

#[test]
fn a_seat_map_from_the_state_matches_the_api_md_shape() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "client-01", &["A1"], &[("standing", 2)], at(0)).unwrap();
    let map = desk.state.seat_map(Some(&support::holder("ann")), ServerMillis(5));
    let json = serde_json::to_value(&map).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["serverTime"], 5);
    assert_eq!(
        json["seats"][0],
        serde_json::json!({"id": "A1", "sold": false, "holdExpiresAt": at(600).0, "mine": true})
    );
    assert_eq!(json["seats"][1]["holdExpiresAt"], Value::Null);
    assert_eq!(
        json["areas"][0],
        serde_json::json!({"id": "standing", "capacity": 5, "sold": 0,
                           "holds": [{"quantity": 2, "expiresAt": at(600).0, "mine": true}]})
    );
}

#[test]
fn a_hold_counts_its_places_and_the_extensions_it_has_left() {
    let hold: HoldBody = round_trip(
        r#"{"holdId": "h1", "showId": "s", "seats": ["B7", "B8"], "areas": {"standing": 2, "balcony": 1},
            "status": "HELD", "expiresAt": 5, "extensions": 1, "late": false, "serverTime": 1}"#,
    );
    assert_eq!(hold.places(), 5);
    assert_eq!(hold.extensions_left(3), 2);
    assert_eq!(hold.extensions_left(1), 0);
    assert_eq!(hold.extensions_left(0), 0, "never below zero");
}

#[test]
fn every_refusal_reads_back_from_its_error_body() {
    let seats = vec!["B7".to_owned(), "B8".to_owned()];
    let every = [
        Rejection::InvalidSeats { seats: seats.clone() },
        Rejection::InvalidSeats { seats: vec![] },
        Rejection::InvalidQuantity { area: None },
        Rejection::InvalidHoldId,
        Rejection::IdempotencyMismatch,
        Rejection::HoldLimit,
        Rejection::SeatsTaken { seats: seats.clone() },
        Rejection::WouldStrand { seats },
        Rejection::NotEnoughSeats { area: "standing".into(), available: 3 },
        Rejection::NoHold,
        Rejection::HoldExpired,
        Rejection::HoldReleased,
        Rejection::AlreadyConfirmed,
        Rejection::ExtensionLimit,
    ];
    for rejection in every {
        let body = rejection.to_wire(ServerMillis(1));
        assert_eq!(Rejection::from_wire(&body), Some(rejection), "{}", body.error);
    }
    // The wire does not name the area of a bad quantity.
    let quantity = Rejection::InvalidQuantity { area: Some("standing".into()) }.to_wire(ServerMillis(1));
    assert_eq!(Rejection::from_wire(&quantity), Some(Rejection::InvalidQuantity { area: None }));
    let not_a_rule = Rejection::HoldLimit.to_wire(ServerMillis(1));
    assert_eq!(Rejection::from_wire(&ErrorBody { error: "unauthorized".into(), ..not_a_rule }), None);
}

#[test]
fn a_refusal_names_its_seats_as_asked() {
    let taken = Rejection::SeatsTaken { seats: vec!["B8".into()] }.naming_seats(|id| format!("Row B, seat 8 ({id})"));
    assert_eq!(taken.message(), "Row B, seat 8 (B8) was just taken.");
    assert_eq!(Rejection::HoldLimit.naming_seats(str::to_owned), Rejection::HoldLimit);
}

#[test]
fn a_show_answer_reads_as_its_v1_definition_and_its_offer() {
    let answer = r##"{"id": "t", "name": "T", "holdSeconds": 600, "extensionSeconds": 300, "maxExtensions": 2,
        "maxSeatsPerHold": 6, "maxActiveHoldsPerHolder": 1, "latePolicy": "allow_confirm_until_expiry",
        "seats": [{"id": "A1", "x": 0, "y": 0, "category": "a", "section": "S", "row": "A", "number": 1}],
        "areas": [], "categories": [{"id": "a", "name": "Stalls", "price": 4500, "currency": "EUR", "color": "#1f6feb"}],
        "focus": {"x": 0, "y": -10}, "channels": [{"id": "presale", "seats": ["A1"]}], "serverTime": 1}"##;
    let show: seat_state::wire::ShowDefinition = serde_json::from_str(answer).unwrap();
    assert_eq!(show.seats[0].category.as_deref(), Some("a"));
    let offer: seat_state::wire::ShowOffer = serde_json::from_str(answer).unwrap();
    assert_eq!((offer.categories[0].price, offer.categories[0].currency.as_str()), (4500, "EUR"));
    assert_eq!((offer.channels[0].code.as_deref(), offer.channels[0].seats.as_slice()), (None, &["A1".to_owned()][..]));
    let v1: seat_state::wire::ShowOffer = serde_json::from_str(r#"{"id": "t", "seats": []}"#).unwrap();
    assert_eq!(v1, seat_state::wire::ShowOffer::default());
}

/// API.md "On-sale (v3)": a compact map is the full one once the seats it
/// leaves out are put back free, and the browser's live map derives the
/// same states from either.
#[test]
fn a_compact_seat_map_is_the_full_map_with_its_free_seats_left_out() {
    use seat_state::sync::Input;
    use seat_state::{HoldId, HoldRequest, HolderId, SeatMapSync, SeatScope, Show, ShowState};
    let input: seat_state::wire::ShowInput = serde_json::from_str(
        r#"{"id": "compact", "name": "Compact", "seats": [{"id": "A1", "x": 0, "y": 0}, {"id": "A2", "x": 10, "y": 0},
            {"id": "A3", "x": 20, "y": 0}, {"id": "A4", "x": 30, "y": 0}]}"#,
    )
    .unwrap();
    let show = Show::parse(&input).unwrap();
    let mut state = ShowState::new(show.clone());
    let now = ServerMillis(1_764_460_000_000);
    let alice = HolderId::new("alice");
    let body: HoldRequestBody = serde_json::from_str(r#"{"holdId": "alice-001", "seats": ["A2"]}"#).unwrap();
    let request = HoldRequest::parse(&body, &show, HoldId::parse("unused-id").unwrap()).unwrap();
    let seat_state::Decision::Apply(change) = state.decide_create(&alice, &request, now).unwrap() else {
        panic!("a free seat is held")
    };
    state.apply(&change);

    let full = state.seat_map_of(SeatScope::Every, Some(&alice), now);
    let compact = state.seat_map_of(SeatScope::Taken, Some(&alice), now);
    assert_eq!(compact.seats.iter().map(|fact| fact.id.as_str()).collect::<Vec<_>>(), ["A2"]);
    let ids: Vec<&str> = show.seats.iter().map(|seat| seat.id.as_str()).collect();
    let restored = compact.clone().with_free_seats(ids.iter().copied());
    let free_mine = |map: &seat_state::wire::SeatMap| {
        map.seats
            .iter()
            .map(|fact| (fact.id.clone(), fact.hold_expires_at, fact.mine == Some(true)))
            .collect::<Vec<_>>()
    };
    assert_eq!(free_mine(&restored), free_mine(&full));
    // A full map comes back as it was.
    assert_eq!(full.clone().with_free_seats(ids.iter().copied()), full);
    // Past the hold's deadline nothing is taken any more.
    let later = now.plus_millis(600_001);
    assert!(state.seat_map_of(SeatScope::Taken, None, later).seats.is_empty());

    let mut browser = SeatMapSync::new();
    browser.handle_input(Input::Tick(seat_state::LocalMillis(now.0)));
    browser.handle_input(Input::Snapshot(restored));
    assert_eq!(browser.seat("A2").map(|seat| seat.state), Some(seat_state::SeatState::Held));
    assert_eq!(browser.seat("A4").map(|seat| seat.state), Some(seat_state::SeatState::Free));
}

/// The definition customers read leaves a default label out; the default
/// is the place's words for a seat in a row, else the id.
#[test]
fn default_labels_are_left_out_and_derived_back() {
    use seat_state::wire::{ShowInput, default_label};
    let input: ShowInput = serde_json::from_str(
        r#"{"id": "labels", "name": "Labels", "seats": [
            {"id": "S1", "x": 0, "y": 0, "section": "101", "row": "1", "number": 1, "label": "Section 101, row 1, seat 1"},
            {"id": "S2", "x": 10, "y": 0, "section": "101", "row": "1", "number": 2, "label": "Aisle"},
            {"id": "S3", "x": 20, "y": 0, "section": "101", "row": "1", "number": 3},
            {"id": "B7", "x": 30, "y": 0}]}"#,
    )
    .unwrap();
    let document = seat_state::Show::parse(&input).unwrap().to_wire().for_customers();
    let labels: Vec<Option<&str>> = document.seats.iter().map(|seat| seat.seat.label.as_deref()).collect();
    // S3 had no label: on input it is its id, which is not a placed seat's default.
    assert_eq!(labels, [None, Some("Aisle"), Some("S3"), None]);
    let derived: Vec<String> =
        document.seats.iter().map(|seat| seat.seat.label.clone().unwrap_or_else(|| seat.default_label())).collect();
    assert_eq!(derived, ["Section 101, row 1, seat 1", "Aisle", "S3", "B7"]);
    assert_eq!(default_label("x", Some("A"), Some("2"), Some(3)), "Section A, row 2, seat 3");
    assert_eq!(default_label("x", Some("A"), None, Some(3)), "x");
}
