//! The exported API in headless Chromium, called as JavaScript calls it:
//! JavaScript values in (`JSON.parse`d like the server's bodies), JavaScript
//! values out. `cargo test -p seat-state-js --target wasm32-unknown-unknown`.

#![cfg(target_arch = "wasm32")]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seat_state_js::{ClockSync, SeatMapSync, SeatOrder, countdown, expand_seats, seat_state};
use tsify::Ts;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const SERVER: i64 = 1_764_460_000_000;

/// A JavaScript value from JSON text, as `JSON.parse` gives it.
fn js<T: tsify::Tsify>(json: &str) -> Ts<T> {
    Ts::new_unchecked(js_sys::JSON::parse(json).unwrap())
}

/// A JavaScript value as JSON text, to compare whole answers.
fn json(value: impl Into<JsValue>) -> String {
    js_sys::JSON::stringify(&value.into()).unwrap().into()
}

#[wasm_bindgen_test]
fn seat_state_is_derived_from_facts_at_the_server_now() {
    let at = |facts: &str, now: i64| json(seat_state(js(facts), now as f64).unwrap());
    let deadline = SERVER + 1;
    assert_eq!(at(&format!(r#"{{"sold": false, "holdExpiresAt": {deadline}}}"#), SERVER), r#""held""#);
    assert_eq!(at(&format!(r#"{{"sold": false, "holdExpiresAt": {deadline}}}"#), deadline), r#""free""#);
    assert_eq!(at(r#"{"sold": true, "holdExpiresAt": null}"#, SERVER), r#""sold""#);
    assert_eq!(at(r#"{"sold": false}"#, SERVER), r#""free""#, "holdExpiresAt may be absent");
    assert!(seat_state(js(r#"{"sold": "yes"}"#), SERVER as f64).is_err(), "a malformed fact throws");
    assert!(seat_state(js(r#"{"sold": false}"#), f64::NAN).is_err(), "NaN is no instant");
}

#[wasm_bindgen_test]
fn clock_sync_answers_undefined_then_the_estimate() {
    let mut clock = ClockSync::new();
    assert_eq!(clock.server_now(1_000.0).unwrap(), None);
    assert_eq!(clock.uncertainty_ms(), None);
    // Sent at local 1,000, the server said 61,050, back at local 1,100.
    assert_eq!(json(clock.add_sample(1_000.0, 61_050.0, 1_100.0).unwrap()), r#""kept""#);
    assert_eq!(clock.server_now(1_950.5).unwrap(), Some(61_950.0), "fractions of a ms round down");
    assert_eq!(clock.uncertainty_ms(), Some(50.0));
    assert_eq!(clock.offset_ms(), Some(60_000.0));
    assert_eq!(json(clock.add_sample(2_000.0, 1_000.0, 1_900.0).unwrap()), r#""ignored""#);
}

#[wasm_bindgen_test]
fn countdown_is_buffered_and_named() {
    let view = json(countdown((SERVER + 65_000) as f64, SERVER as f64, 500.0, Some(0.0)).unwrap());
    assert_eq!(view, r#"{"remainingSecs":64,"text":"1:04","phase":"normal","nextChangeInMillis":501}"#);
    let view = json(countdown((SERVER + 3_000) as f64, SERVER as f64, 0.0, None).unwrap());
    assert_eq!(view, r#"{"remainingSecs":0,"text":"0:00","phase":"expired","nextChangeInMillis":null}"#);
}

#[wasm_bindgen_test]
fn the_machine_takes_a_snapshot_and_a_change_and_asks_for_a_lost_one() {
    let mut sync = SeatMapSync::new(None).unwrap();
    let feed = |sync: &mut SeatMapSync, input: &str| sync.handle_input(js(input)).unwrap();
    feed(&mut sync, &format!(r#"{{"tick": {SERVER}}}"#));
    feed(
        &mut sync,
        &format!(
            r#"{{"snapshot": {{"showId": "impro", "serverTime": {SERVER}, "version": 7, "areas": [],
                "seats": [{{"id": "B7", "sold": false, "holdExpiresAt": null, "mine": false}},
                          {{"id": "B8", "sold": true, "holdExpiresAt": null, "mine": true}}]}}}}"#
        ),
    );
    assert_eq!(json(sync.drain_changed().unwrap()), r#"{"seats":["B7","B8"],"areas":[],"myHolds":false}"#);
    assert_eq!(json(sync.seat("B8").unwrap().unwrap()), r#"{"state":"sold","mine":true,"blocked":false}"#);
    assert!(sync.seat("Z1").unwrap().is_none());

    let deadline = SERVER + 10_000;
    feed(
        &mut sync,
        &format!(
            r#"{{"change": {{"version": 8, "serverTime": {SERVER},
                "seats": [{{"id": "B7", "sold": false, "holdExpiresAt": {deadline}}}]}}}}"#
        ),
    );
    assert_eq!(json(sync.seat("B7").unwrap().unwrap()), r#"{"state":"held","mine":false,"blocked":false}"#);
    // The snapshot anchored the clock: the deadline comes back as local time.
    assert_eq!(json(sync.poll_output().unwrap()), format!(r#"{{"type":"timeout","at":{deadline}}}"#));

    feed(&mut sync, &format!(r#"{{"change": {{"version": 10, "serverTime": {SERVER}}}}}"#));
    assert_eq!(json(sync.poll_output().unwrap()), r#"{"type":"resyncNeeded","lastVersion":8}"#);
    assert!(sync.handle_input(js(r#"{"snapshot": {"version": "new"}}"#)).is_err(), "a malformed input throws");
    assert!(sync.handle_input(js(r#"{"tock": 1}"#)).is_err(), "an unknown input throws");
}

/// The message of what a call threw.
fn thrown(error: wasm_bindgen::JsError) -> String {
    let error: JsValue = error.into();
    js_sys::Reflect::get(&error, &"message".into()).unwrap().as_string().unwrap()
}

#[wasm_bindgen_test]
fn malformed_input_throws_a_message_naming_what_and_where() {
    let facts = |facts: &str| thrown(seat_state(js(facts), SERVER as f64).unwrap_err());
    assert_eq!(facts(r#"{"sold": "yes"}"#), "expected a boolean at sold");
    assert_eq!(facts(r#"{"sold": false, "holdExpiresAt": 1.5}"#), "expected an integer at holdExpiresAt");
    assert_eq!(facts(r#"{"sold": false, "holdExpiresAt": 9007199254740992}"#), "expected an integer at holdExpiresAt");
    assert_eq!(facts(r#"{"holdExpiresAt": 1}"#), "missing field at sold");
    assert_eq!(facts("[]"), "expected an object");

    let mut sync = SeatMapSync::new(None).unwrap();
    let mut feed = |input: &str| sync.handle_input(js(input)).map_err(thrown);
    let snapshot = |seats: &str| {
        format!(
            r#"{{"snapshot": {{"showId": "s", "serverTime": {SERVER}, "version": 1, "areas": [], "seats": {seats}}}}}"#
        )
    };
    assert_eq!(
        feed(&snapshot(r#"[{"id": "A1", "sold": false}, {"id": "A2"}]"#)),
        Err("missing field at snapshot.seats[1].sold".into())
    );
    assert_eq!(feed(&snapshot(r#"{"id": "A1"}"#)), Err("expected an array at snapshot.seats".into()));
    assert_eq!(feed(r#"{"tock": 1}"#), Err("unknown variant `tock`".into()));
    assert_eq!(feed(r#"{"tick": 1, "snapshot": {}}"#), Err("expected an object with exactly one key".into()));
    assert_eq!(feed(r#"{"tick": "soon"}"#), Err("expected a number at tick".into()));
    assert_eq!(
        feed(r#"{"resyncFailed": {"jitterPermille": 70000}}"#),
        Err("invalid value at resyncFailed.jitterPermille".into())
    );
    let hold = |areas: &str| {
        format!(
            r#"{{"myHolds": [{{"holdId": "h1", "showId": "s", "seats": [], "areas": {areas}, "status": "HELD",
                "expiresAt": {SERVER}, "extensions": 0, "late": false, "serverTime": {SERVER}}}]}}"#
        )
    };
    assert_eq!(feed(&hold(r#"{"GA": "two"}"#)), Err("expected an integer at myHolds[0].areas.GA".into()));
    // Well-formed input still goes in after refusals.
    assert_eq!(feed(&hold(r#"{"GA": 2}"#)), Ok(()));
    assert_eq!(feed(&snapshot(r#"[{"id": "A1", "sold": false, "holdExpiresAt": null}]"#)), Ok(()));
    assert_eq!(sync.my_holds().unwrap().len(), 1);
}

#[wasm_bindgen_test]
fn an_undefined_field_counts_as_absent() {
    let facts = js_sys::Object::new();
    js_sys::Reflect::set(&facts, &"sold".into(), &JsValue::FALSE).unwrap();
    js_sys::Reflect::set(&facts, &"holdExpiresAt".into(), &JsValue::UNDEFINED).unwrap();
    let state = seat_state(Ts::new_unchecked(facts.into()), SERVER as f64).unwrap();
    assert_eq!(json(state), r#""free""#);
}

#[wasm_bindgen_test]
fn a_seat_order_reads_compact_frames_back_as_json() {
    let order = SeatOrder::new(js(r#"{"id": "impro", "name": "Impro", "seats": [{"id": "B7", "x": 0, "y": 0},
        {"id": "B8", "x": 10, "y": 0, "access": "companion"}, {"id": "B9", "x": 20, "y": 0}],
        "areas": [], "channels": [{"id": "presale", "seats": ["B9"]}]}"#))
    .unwrap();
    let deadline = SERVER + 60_000;
    let map = order
        .decode_map(js(&format!(r#"{{"showId": "impro", "serverTime": {SERVER}, "version": 4, "h": [[60000, 1]]}}"#)))
        .unwrap();
    assert_eq!(
        json(map),
        format!(
            r#"{{"showId":"impro","serverTime":{SERVER},"version":4,"seats":[{{"id":"B7","sold":false,"holdExpiresAt":null,"mine":false}},{{"id":"B8","sold":false,"holdExpiresAt":{deadline},"mine":false,"access":"companion"}},{{"id":"B9","sold":false,"holdExpiresAt":null,"mine":false,"channel":"presale"}}],"areas":[]}}"#
        )
    );
    let change = order.decode_change(js(&format!(r#"{{"v": 6, "p": 4, "t": {SERVER}, "s": [2], "b": [2]}}"#))).unwrap();
    assert_eq!(
        json(change),
        format!(
            r#"{{"version":6,"serverTime":{SERVER},"since":4,"seats":[{{"id":"B9","sold":true,"holdExpiresAt":null,"blocked":true,"channel":"presale"}}],"areas":[]}}"#
        )
    );

    let decode = |compact: &str| order.decode_change(js(compact)).map(json).map_err(thrown);
    assert_eq!(decode(r#"{"v": 6, "t": 0, "f": [3]}"#), Err("seat 3 is not in the show".into()));
    assert_eq!(decode(r#"{"v": 6, "t": 0, "f": [0], "b": [1]}"#), Err("blocked seat 1 has no state".into()));
    assert_eq!(decode(r#"{"v": 6, "t": 0, "f": [-1]}"#), Err("invalid value at f[0]".into()));
    assert_eq!(decode(r#"{"t": 0}"#), Err("missing field at v".into()));
    assert_eq!(
        SeatOrder::new(js(r#"{"seats": [], "channels": [{"id": "presale"}]}"#)).map(|_| ()).map_err(thrown),
        Err("missing field at channels[0].seats".into())
    );
}

/// A field of the rows fixture (tests/fixtures.rs: made by seat-state).
fn fixture<T: tsify::Tsify>(field: &str) -> Ts<T> {
    let whole = js_sys::JSON::parse(include_str!("fixtures/rows.json")).unwrap();
    Ts::new_unchecked(js_sys::Reflect::get(&whole, &field.into()).unwrap())
}

#[wasm_bindgen_test]
fn a_stadiums_rows_expand_and_its_bit_set_map_reads_as_the_compact_one() {
    // Each seat's fields as JSON, by name (the fixture's keys are sorted).
    let fields = |seat: &JsValue| -> std::collections::BTreeMap<String, String> {
        let keys = js_sys::Object::keys(seat.unchecked_ref::<js_sys::Object>());
        keys.iter().map(|key| (key.as_string().unwrap(), json(js_sys::Reflect::get(seat, &key).unwrap()))).collect()
    };
    let seats: Vec<JsValue> = expand_seats(fixture("definition")).unwrap().into_iter().map(Into::into).collect();
    let kept = js_sys::Array::from(&fixture::<seat_state_js::ShowSeat>("seats").into()).to_vec();
    assert_eq!(seats.iter().map(fields).collect::<Vec<_>>(), kept.iter().map(fields).collect::<Vec<_>>());
    let order = SeatOrder::new(fixture("definition")).unwrap();
    let bits = json(order.decode_bits(fixture("bits")).unwrap());
    assert_eq!(bits, json(order.decode_map(fixture("compact")).unwrap()));
    assert!(bits.contains(r#""mine":true"#) && bits.contains(r#""blocked":true"#), "{bits}");
}
