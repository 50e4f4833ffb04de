//! Every row of API.md's hold table, through the router on a real SQLite file.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

async fn app_with_show(overrides: Value) -> TestApp {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("s", 10, 5, overrides)).await.status, 201);
    app
}

fn seat_state(map: &Value, seat: &str, now: i64) -> &'static str {
    let fact = map["seats"].as_array().unwrap().iter().find(|s| s["id"] == seat).unwrap();
    if fact["sold"] == true {
        "sold"
    } else if fact["holdExpiresAt"].as_i64().is_some_and(|deadline| deadline > now) {
        "held"
    } else {
        "free"
    }
}

#[tokio::test]
async fn a_hold_takes_its_seats_and_a_retry_takes_nothing_more() {
    let app = app_with_show(json!({"maxActiveHoldsPerHolder": 1})).await;
    let token = app.session().await;
    let created =
        app.hold(&token, "s", json!({"holdId": "hold-0001", "seats": ["A1", "A2"], "areas": {"floor": 2}})).await;
    assert_eq!(created.status, 201, "{created:?}");
    assert_eq!(created.body["status"], "HELD");
    assert_eq!(created.body["seats"], json!(["A1", "A2"]));
    assert_eq!(created.body["areas"], json!({"floor": 2}));
    assert_eq!(created.body["extensions"], 0);
    assert_eq!(created.body["late"], false);
    let now = created.server_time_header.unwrap();
    assert_eq!(created.body["expiresAt"].as_i64(), Some(now + 600_000));

    // Same holdId, same body: the same hold, even at the hold limit.
    let again =
        app.hold(&token, "s", json!({"holdId": "hold-0001", "seats": ["A1", "A2"], "areas": {"floor": 2}})).await;
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(again.body["expiresAt"], created.body["expiresAt"]);

    let map = app.call("GET", "/api/shows/s/seats", Some(&token), None).await;
    assert_eq!(seat_state(&map.body, "A1", now), "held");
    assert_eq!(map.body["seats"][0]["mine"], true);
    assert_eq!(map.body["areas"][0]["holds"][0]["quantity"], 2);
    assert_eq!(map.body["version"], 1, "one change so far");

    let mismatch = app.hold(&token, "s", json!({"holdId": "hold-0001", "seats": ["A3"]})).await;
    assert_error(&mismatch, 409, "idempotency_mismatch");
    let other = app.session().await;
    let stolen_id =
        app.hold(&other, "s", json!({"holdId": "hold-0001", "seats": ["A1", "A2"], "areas": {"floor": 2}})).await;
    assert_error(&stolen_id, 409, "idempotency_mismatch");
}

#[tokio::test]
async fn taken_seats_are_all_named_and_nothing_is_taken() {
    let app = app_with_show(json!({})).await;
    let (a, b) = (app.session().await, app.session().await);
    assert_eq!(app.hold(&a, "s", json!({"seats": ["A7", "A8"]})).await.status, 201);
    let conflict = app.hold(&b, "s", json!({"seats": ["A6", "A8", "A7"]})).await;
    assert_error(&conflict, 409, "seats_taken");
    assert_eq!(conflict.body["seats"], json!(["A8", "A7"]));
    let map = app.get("/api/shows/s/seats").await;
    let now = map.server_time_header.unwrap();
    assert_eq!(seat_state(&map.body, "A6", now), "free", "all or nothing");
    assert_eq!(map.body["seats"][5]["mine"], false);
    assert_eq!(app.hold(&b, "s", json!({"seats": ["A6"]})).await.status, 201);
}

#[tokio::test]
async fn areas_report_what_is_left() {
    let app = app_with_show(json!({"maxActiveHoldsPerHolder": 5})).await;
    let token = app.session().await;
    assert_eq!(app.hold(&token, "s", json!({"areas": {"floor": 4}})).await.status, 201);
    let short = app.hold(&token, "s", json!({"areas": {"floor": 2}})).await;
    assert_error(&short, 409, "not_enough_seats");
    assert_eq!((short.body["area"].clone(), short.body["available"].clone()), (json!("floor"), json!(1)));
}

#[tokio::test]
async fn invalid_requests_get_precise_errors_and_change_nothing() {
    let app = app_with_show(json!({"maxSeatsPerHold": 3})).await;
    let token = app.session().await;
    let cases = [
        (json!({"seats": []}), 422, "invalid_seats"),
        (json!({"seats": ["A1", "A1"]}), 422, "invalid_seats"),
        (json!({"seats": ["A1", "Z9"]}), 422, "invalid_seats"),
        (json!({"seats": ["A1", "A2"], "areas": {"floor": 2}}), 422, "invalid_seats"),
        (json!({"areas": {"floor": 0}}), 422, "invalid_quantity"),
        (json!({"areas": {"floor": 1.5}}), 422, "invalid_quantity"),
        (json!({"areas": {"balcony": 1}}), 422, "invalid_quantity"),
        (json!({"holdId": "short", "seats": ["A1"]}), 422, "invalid_hold_id"),
        (json!({"seats": "A1"}), 400, "bad_request"),
    ];
    for (body, status, code) in cases {
        let answer = app.hold(&token, "s", body.clone()).await;
        assert_error(&answer, status, code);
    }
    let dup = app.hold(&token, "s", json!({"seats": ["A1", "A1", "Z9"]})).await;
    assert!(dup.body["seats"].as_array().unwrap().contains(&json!("Z9")), "{dup:?}");
    let malformed = app.call("POST", "/api/shows/s/holds", Some(&token), None).await;
    assert_error(&malformed, 400, "bad_request");
    let big = json!({"seats": vec!["A1"; 20_000]});
    assert_error(&app.hold(&token, "s", big).await, 413, "payload_too_large");
    assert_eq!(app.get("/api/shows/s/seats").await.body["version"], 0, "nothing changed");
}

#[tokio::test]
async fn checks_run_in_the_documented_order() {
    let app = app_with_show(json!({})).await;
    let token = app.session().await;
    assert_error(
        &app.call("POST", "/api/shows/s/holds", None, Some(json!({"seats": ["A1"]}))).await,
        401,
        "unauthorized",
    );
    let unknown_show = app.call("POST", "/api/shows/nope/holds", Some(&token), None).await;
    assert_error(&unknown_show, 404, "unknown_show");
}

#[tokio::test]
async fn the_hold_limit_counts_active_holds() {
    let app = app_with_show(json!({"maxActiveHoldsPerHolder": 1})).await;
    let token = app.session().await;
    assert_eq!(app.hold(&token, "s", json!({"seats": ["A1"]})).await.status, 201);
    assert_error(&app.hold(&token, "s", json!({"seats": ["A2"]})).await, 429, "hold_limit");
}

#[tokio::test]
async fn holders_read_extend_confirm_and_release_their_own_holds_only() {
    let app = app_with_show(json!({"maxActiveHoldsPerHolder": 3, "maxExtensions": 1, "extensionSeconds": 60})).await;
    let (me, other) = (app.session().await, app.session().await);
    let first = app.hold(&me, "s", json!({"holdId": "first-hold", "seats": ["A1"]})).await;
    let second = app.hold(&me, "s", json!({"holdId": "second-hold", "seats": ["A2"]})).await;
    assert_eq!((first.status.as_u16(), second.status.as_u16()), (201, 201));

    let list = app.call("GET", "/api/holds", Some(&me), None).await;
    let ids: Vec<&str> = list.body["holds"].as_array().unwrap().iter().map(|h| h["holdId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["second-hold", "first-hold"], "newest first");
    assert_eq!(app.call("GET", "/api/holds", Some(&other), None).await.body["holds"], json!([]));

    assert_eq!(app.call("GET", "/api/holds/first-hold", Some(&me), None).await.body["seats"], json!(["A1"]));
    for (method, path) in [
        ("GET", "/api/holds/first-hold"),
        ("POST", "/api/holds/first-hold/extend"),
        ("POST", "/api/holds/first-hold/confirm"),
        ("DELETE", "/api/holds/first-hold"),
        ("GET", "/api/holds/no-such-hold"),
    ] {
        assert_error(&app.call(method, path, Some(&other), None).await, 404, "no_hold");
    }

    let extended = app.call("POST", "/api/holds/first-hold/extend", Some(&me), None).await;
    assert_eq!(extended.status, 200, "{extended:?}");
    assert_eq!(extended.body["expiresAt"].as_i64(), first.body["expiresAt"].as_i64().map(|t| t + 60_000));
    assert_eq!(extended.body["extensions"], 1);
    assert_error(&app.call("POST", "/api/holds/first-hold/extend", Some(&me), None).await, 409, "extension_limit");

    let confirmed = app.call("POST", "/api/holds/first-hold/confirm", Some(&me), None).await;
    assert_eq!((confirmed.status.as_u16(), confirmed.body["status"].clone()), (200, json!("CONFIRMED")));
    let again = app.call("POST", "/api/holds/first-hold/confirm", Some(&me), None).await;
    assert_eq!(again.body["status"], "CONFIRMED", "confirming twice answers the same");
    assert_error(&app.call("DELETE", "/api/holds/first-hold", Some(&me), None).await, 409, "already_confirmed");
    assert_error(&app.call("POST", "/api/holds/first-hold/extend", Some(&me), None).await, 409, "already_confirmed");

    assert_eq!(app.call("DELETE", "/api/holds/second-hold", Some(&me), None).await.status, 204);
    assert_eq!(app.call("DELETE", "/api/holds/second-hold", Some(&me), None).await.status, 204, "idempotent");
    assert_error(&app.call("POST", "/api/holds/second-hold/confirm", Some(&me), None).await, 410, "hold_released");
    assert_error(&app.call("POST", "/api/holds/second-hold/extend", Some(&me), None).await, 410, "hold_released");

    let map = app.get("/api/shows/s/seats").await;
    let now = map.server_time_header.unwrap();
    assert_eq!((seat_state(&map.body, "A1", now), seat_state(&map.body, "A2", now)), ("sold", "free"));
}

#[tokio::test]
async fn a_hold_id_used_in_another_show_is_a_mismatch() {
    let app = app_with_show(json!({})).await;
    assert_eq!(app.create_show(&show_with("t", 3, 3, json!({}))).await.status, 201);
    let token = app.session().await;
    assert_eq!(app.hold(&token, "s", json!({"holdId": "shared-id-1", "seats": ["A1"]})).await.status, 201);
    let elsewhere = app.hold(&token, "t", json!({"holdId": "shared-id-1", "seats": ["A1"]})).await;
    assert_error(&elsewhere, 409, "idempotency_mismatch");
}
