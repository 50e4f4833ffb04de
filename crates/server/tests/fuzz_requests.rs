//! Fuzzing on stable (proptest): arbitrary bytes and structured near-valid
//! JSON sent through the real router to the hold and show parsers. The
//! invariants: every answer is a documented status with API.md's error
//! body, nothing answers 500, a refused request changes nothing, and what
//! is accepted satisfies the rules (patterns, ranges, unique ids).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use axum::body::Body;
use axum::http::Request;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, Answer, TestApp, show_with};

use seat_state::ServerMillis;
use seat_state::Show;
use seat_state::wire::ShowInput;
use seathold_core::clock::TestClock;
use seathold_core::store::MemoryStore;

/// An app over memory on a test clock, a current-thread runtime to drive it.
fn app() -> (tokio::runtime::Runtime, TestApp) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let clock = TestClock::at(ServerMillis(1_800_000_000_000));
    let app = runtime.block_on(async {
        let app = TestApp::over_store(Some(ADMIN_TOKEN), Arc::new(MemoryStore::default()), &clock);
        assert_eq!(app.create_show(&show_with("fz", 6, 5, json!({"maxSeatsPerHold": 4}))).await.status, 201);
        app
    });
    (runtime, app)
}

fn post(path: &str, token: &str, body: Vec<u8>) -> Request<Body> {
    Request::post(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap()
}

/// An error answer in API.md's shape, with a code its status allows.
fn assert_documented_error(answer: &Answer, codes: &[(u16, &[&str])]) {
    let status = answer.status.as_u16();
    let allowed = codes.iter().find(|(code_status, _)| *code_status == status);
    let code = answer.body["error"].as_str().unwrap_or("");
    assert!(allowed.is_some_and(|(_, names)| names.contains(&code)), "undocumented answer: {answer:?}");
    assert_eq!(answer.body["serverTime"].as_i64(), answer.server_time_header, "{answer:?}");
}

/// Mostly ids that exist or could, sometimes anything.
fn id_like() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["A1", "A2", "A3", "A4", "A5", "A6", "floor"]).prop_map(str::to_owned),
        3 => "[a-z0-9][a-z0-9_-]{0,8}",
        1 => ".{0,40}",
        1 => "[a-z0-9-]{60,70}",
    ]
}

/// Mostly small whole numbers, sometimes anything JSON has.
fn number_like() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => (0i64..8).prop_map(Value::from),
        2 => (0u32..8).prop_map(|n| Value::from(f64::from(n))),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_filter("JSON numbers are finite", |f| f.is_finite()).prop_map(Value::from),
        1 => Just(Value::Null),
        1 => Just(json!("7")),
    ]
}

fn hold_body() -> impl Strategy<Value = Vec<u8>> {
    let structured = (
        proptest::option::of("[A-Za-z0-9_-]{6,12}"),
        proptest::collection::vec(id_like(), 0..4),
        proptest::collection::btree_map(id_like(), number_like(), 0..2),
    )
        .prop_map(|(hold_id, seats, areas)| {
            json!({"holdId": hold_id, "seats": seats, "areas": areas}).to_string().into_bytes()
        });
    prop_oneof![1 => proptest::collection::vec(any::<u8>(), 0..300), 3 => structured]
}

const HOLD_ANSWERS: &[(u16, &[&str])] = &[
    (400, &["bad_request"]),
    (409, &["seats_taken", "not_enough_seats", "idempotency_mismatch"]),
    (413, &["payload_too_large"]),
    (422, &["invalid_seats", "invalid_quantity", "invalid_hold_id"]),
    (429, &["hold_limit"]),
];

#[test]
fn any_hold_body_gets_a_documented_answer_and_a_refusal_changes_nothing() {
    let (runtime, app) = app();
    let token = runtime.block_on(app.session());
    let mut runner = TestRunner::new(Config { cases: 512, ..Config::default() });
    let outcome = runner.run(&hold_body(), |body| {
        runtime.block_on(async {
            let before = app.get("/api/shows/fz/seats").await.body["version"].clone();
            let answer = app.send(post("/api/shows/fz/holds", &token, body)).await;
            match answer.status.as_u16() {
                201 | 200 => {
                    let hold = answer.body["holdId"].as_str().unwrap();
                    assert!(hold.len() >= 8 && hold.len() <= 64, "{answer:?}");
                    let places = answer.body["seats"].as_array().unwrap().len()
                        + answer.body["areas"]
                            .as_object()
                            .unwrap()
                            .values()
                            .map(|n| n.as_u64().unwrap() as usize)
                            .sum::<usize>();
                    assert!((1..=4).contains(&places), "within maxSeatsPerHold: {answer:?}");
                    // Leave the show free for the next case.
                    let released = app.call("DELETE", &format!("/api/holds/{hold}"), Some(&token), None).await;
                    assert_eq!(released.status, 204, "{released:?}");
                }
                _ => {
                    assert_documented_error(&answer, HOLD_ANSWERS);
                    let after = app.get("/api/shows/fz/seats").await.body["version"].clone();
                    assert_eq!(before, after, "a refused request changed the show: {answer:?}");
                }
            }
        });
        Ok(())
    });
    outcome.unwrap();
}

fn show_body() -> impl Strategy<Value = Vec<u8>> {
    let seat = (id_like(), any::<i16>(), any::<i16>()).prop_map(|(id, x, y)| json!({"id": id, "x": x, "y": y}));
    let area = (id_like(), id_like(), number_like())
        .prop_map(|(id, name, capacity)| json!({"id": id, "name": name, "capacity": capacity}));
    let structured = (
        prop_oneof![3 => "[a-z0-9][a-z0-9-]{0,10}", 1 => id_like()],
        proptest::option::of(".{0,12}"),
        prop_oneof![
            3 => proptest::collection::vec((1i64..8).prop_map(Value::from), 5),
            1 => proptest::collection::vec(number_like(), 5)
        ],
        proptest::collection::vec(seat, 0..5),
        proptest::collection::vec(area, 0..3),
        proptest::option::of(prop_oneof![Just("reject".to_owned()), Just("honorIfFree".to_owned()), ".{0,8}"]),
    )
        .prop_map(|(id, name, rules, seats, areas, late)| {
            json!({"id": id, "name": name, "holdSeconds": rules[0], "extensionSeconds": rules[1],
                   "maxExtensions": rules[2], "maxSeatsPerHold": rules[3], "maxActiveHoldsPerHolder": rules[4],
                   "latePolicy": late, "seats": seats, "areas": areas})
            .to_string()
            .into_bytes()
        });
    prop_oneof![1 => proptest::collection::vec(any::<u8>(), 0..300), 3 => structured]
}

/// What an accepted show must satisfy (API.md): patterns, ranges, unique ids.
fn assert_valid_show(show: &Value) {
    let id = show["id"].as_str().unwrap();
    assert!(id.len() <= 64 && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{show}");
    assert!(show["holdSeconds"].as_i64().unwrap() >= 1 && show["extensionSeconds"].as_i64().unwrap() >= 1, "{show}");
    let places: Vec<&str> = ["seats", "areas"]
        .iter()
        .flat_map(|list| show[*list].as_array().unwrap().iter().map(|place| place["id"].as_str().unwrap()))
        .collect();
    assert!(!places.is_empty(), "{show}");
    let unique: std::collections::BTreeSet<&str> = places.iter().copied().collect();
    assert_eq!(unique.len(), places.len(), "ids unique across seats and areas: {show}");
    for place in places {
        assert!(
            place.len() <= 32 && place.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "{show}"
        );
    }
}

/// A definition's seats with the labels it leaves out (API.md "On-sale
/// (v3)") put back, as a client derives them.
fn with_default_labels(seats: &Value) -> Value {
    let mut seats = seats.clone();
    for seat in seats.as_array_mut().into_iter().flatten() {
        if seat.get("label").is_none() {
            let text = |name: &str| seat.get(name).and_then(Value::as_str).map(str::to_owned);
            let (id, section, row) = (text("id").unwrap_or_default(), text("section"), text("row"));
            let number = seat.get("number").and_then(Value::as_i64);
            let label = seat_state::wire::default_label(&id, section.as_deref(), row.as_deref(), number);
            seat["label"] = Value::String(label);
        }
    }
    seats
}

#[test]
fn any_show_definition_is_created_whole_or_refused_with_nothing_created() {
    let (runtime, app) = app();
    let mut runner = TestRunner::new(Config { cases: 512, ..Config::default() });
    let outcome = runner.run(&show_body(), |body| {
        runtime.block_on(async {
            let shows_before = app.get("/api/shows").await.body["shows"].as_array().unwrap().len();
            // The parser on its own: an accepted definition reads back the same.
            if let Ok(input) = serde_json::from_slice::<ShowInput>(&body)
                && let Ok(show) = Show::parse(&input)
            {
                let again: ShowInput = serde_json::from_value(serde_json::to_value(show.to_wire()).unwrap()).unwrap();
                assert_eq!(Show::parse(&again).unwrap(), show, "parse(to_wire(show)) is the show");
            }
            let answer = app.send(post("/api/admin/shows", ADMIN_TOKEN, body)).await;
            match answer.status.as_u16() {
                201 | 200 => {
                    assert_valid_show(&answer.body);
                    let id = answer.body["id"].as_str().unwrap();
                    let read = app.get(&format!("/api/shows/{id}")).await;
                    assert_eq!(with_default_labels(&read.body["seats"]), answer.body["seats"], "{read:?}");
                }
                _ => {
                    let codes: &[(u16, &[&str])] = &[
                        (400, &["bad_request"]),
                        (409, &["show_exists"]),
                        (413, &["payload_too_large"]),
                        (422, &["invalid_show"]),
                    ];
                    assert_documented_error(&answer, codes);
                    let shows_after = app.get("/api/shows").await.body["shows"].as_array().unwrap().len();
                    assert_eq!(shows_before, shows_after, "a refused show was created: {answer:?}");
                }
            }
        });
        Ok(())
    });
    outcome.unwrap();
}
