//! API.md "Box office (v2)", blocked seats: the operator takes seats off
//! sale and puts them back; the seat map says so; nobody holds them; the
//! journal keeps it across a restart.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, Answer, TestApp, assert_error, show_with};

async fn blocked(app: &TestApp, method: &str, body: Value) -> Answer {
    let request = Request::builder()
        .method(method)
        .uri("/api/admin/shows/op/blocked")
        .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    app.send(request).await
}

/// Show `op`: seats A1..A4 and 5 floor places.
async fn show() -> TestApp {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("op", 4, 5, json!({}))).await.status, 201);
    app
}

fn seat(app_seats: &Value, id: &str) -> Value {
    app_seats["seats"].as_array().unwrap().iter().find(|seat| seat["id"] == id).unwrap().clone()
}

#[tokio::test]
async fn a_blocked_seat_is_marked_and_refused_then_holdable_once_unblocked() {
    let app = show().await;
    let answer = blocked(&app, "POST", json!({"seats": ["A2", "A3"], "reason": "wheelchair places"})).await;
    assert_eq!((answer.status.as_u16(), &answer.body["blocked"]), (200, &json!(["A2", "A3"])), "{answer:?}");
    assert!(answer.body["serverTime"].is_i64());

    let map = app.get("/api/shows/op/seats").await.body;
    assert_eq!(seat(&map, "A2")["blocked"], true);
    assert!(seat(&map, "A1").get("blocked").is_none(), "omitted when false: {map}");
    assert_eq!(map["version"], 1, "a block is a change of the show");

    let token = app.session().await;
    let refused = app.hold(&token, "op", json!({"seats": ["A1", "A2"]})).await;
    assert_error(&refused, 409, "seats_unavailable");
    assert_eq!(refused.body["seats"], json!(["A2"]));

    let answer = blocked(&app, "DELETE", json!({"seats": ["A2"]})).await;
    assert_eq!((answer.status.as_u16(), &answer.body["blocked"]), (200, &json!(["A3"])), "{answer:?}");
    assert_eq!(app.hold(&token, "op", json!({"seats": ["A1", "A2"]})).await.status, 201);
}

#[tokio::test]
async fn blocking_is_journaled_counted_and_survives_a_restart() {
    let app = show().await;
    blocked(&app, "POST", json!({"seats": ["A4"], "reason": "camera position"})).await;
    assert_eq!(blocked(&app, "POST", json!({"seats": ["A4"]})).await.body["blocked"], json!(["A4"]), "again: same");
    blocked(&app, "DELETE", json!({"seats": ["A4"]})).await;
    blocked(&app, "POST", json!({"seats": ["A4"], "reason": "camera position"})).await;
    let app = app.restart();
    assert_eq!(seat(&app.get("/api/shows/op/seats").await.body, "A4")["blocked"], true);

    let request = |path: &str| {
        Request::get(path).header("authorization", format!("Bearer {ADMIN_TOKEN}")).body(Body::empty()).unwrap()
    };
    let stats = app.send(request("/api/admin/shows/op/stats")).await.body;
    assert_eq!((&stats["free"], &stats["blocked"]), (&json!(8), &json!(1)), "{stats}");
    let journal = app.send(request("/api/admin/shows/op/journal")).await.body;
    let entries: Vec<Value> = journal.as_str().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let actions: Vec<&str> = entries.iter().map(|entry| entry["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["blocked", "unblocked", "blocked"], "blocking A4 again wrote nothing");
    let entry = &entries[2];
    assert_eq!(
        (&entry["action"], &entry["seats"], &entry["reason"], &entry["holder"]),
        (&json!("blocked"), &json!("A4"), &json!("camera position"), &json!("operator"))
    );
    assert!(entry.get("holdId").is_none(), "a block names no hold: {entry}");
}

#[tokio::test]
async fn bad_block_requests_change_nothing() {
    let app = show().await;
    let unknown = blocked(&app, "POST", json!({"seats": ["A1", "Z9", "not an id"]})).await;
    assert_error(&unknown, 422, "invalid_seats");
    assert_eq!(unknown.body["seats"], json!(["not an id"]), "malformed ids first");
    assert_eq!(blocked(&app, "POST", json!({"seats": ["A1", "Z9"]})).await.body["seats"], json!(["Z9"]));
    assert_error(&blocked(&app, "POST", json!({"seats": []})).await, 422, "invalid_seats");
    assert_error(&blocked(&app, "POST", json!({"seats": "A1"})).await, 400, "bad_request");
    assert_error(&blocked(&app, "POST", json!({"seats": ["A1"], "reason": "x".repeat(201)})).await, 400, "bad_request");
    let anonymous =
        app.send(Request::post("/api/admin/shows/op/blocked").body(Body::from(r#"{"seats":["A1"]}"#)).unwrap()).await;
    assert_error(&anonymous, 401, "unauthorized");
    let request = Request::delete("/api/admin/shows/nope/blocked")
        .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
        .body(Body::from(r#"{"seats":["A1"]}"#))
        .unwrap();
    assert_error(&app.send(request).await, 404, "unknown_show");
    assert_eq!(app.get("/api/shows/op/seats").await.body["version"], 0, "nothing changed");
}
