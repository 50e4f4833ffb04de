//! API.md's show and seat-map endpoints, through the router on a real SQLite file.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error};

fn improv() -> Value {
    json!({
      "id": "impro-2026-11-14",
      "name": "Improv night",
      "holdSeconds": 600, "extensionSeconds": 300, "maxExtensions": 2,
      "maxSeatsPerHold": 8, "maxActiveHoldsPerHolder": 1,
      "latePolicy": "reject",
      "seats": [{"id": "B7", "x": 70, "y": 20, "label": "Row B, seat 7", "category": "standard"},
                {"id": "B8", "x": 100, "y": 20}],
      "areas": [{"id": "standing", "name": "Standing", "capacity": 50}]
    })
}

#[tokio::test]
async fn time_answers_with_the_same_instant_in_header_and_body() {
    let app = TestApp::new(None).await;
    let answer = app.get("/api/time").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body["serverTime"].as_i64(), answer.server_time_header);
    assert!(answer.server_time_header.is_some_and(|t| t > 1_700_000_000_000));
}

#[tokio::test]
async fn creating_a_show_is_idempotent_and_conflicts_on_a_different_body() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let created = app.create_show(&improv()).await;
    assert_eq!(created.status, 201, "{created:?}");
    assert_eq!(created.body["id"], "impro-2026-11-14");
    assert_eq!(created.body["seats"][1]["label"], "B8", "label defaults to the id");
    assert_eq!(created.body["serverTime"].as_i64(), created.server_time_header);

    let again = app.create_show(&improv()).await;
    assert_eq!(again.status, 200, "{again:?}");

    let mut different = improv();
    different["name"] = json!("Another night");
    assert_error(&app.create_show(&different).await, 409, "show_exists");
    assert_eq!(app.get("/api/shows/impro-2026-11-14").await.body["name"], "Improv night", "nothing changed");
}

#[tokio::test]
async fn admin_endpoints_need_the_token_and_are_off_without_one() {
    let disabled = TestApp::new(None).await;
    let answer = disabled.post_admin("/api/admin/shows", Some("anything"), improv().to_string()).await;
    assert_error(&answer, 403, "admin_disabled");

    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_error(&app.post_admin("/api/admin/shows", None, improv().to_string()).await, 401, "unauthorized");
    let wrong = app.post_admin("/api/admin/shows", Some("wrong"), improv().to_string()).await;
    assert_error(&wrong, 401, "unauthorized");
    // The token is checked before the body.
    assert_error(&app.post_admin("/api/admin/shows", None, "{not json").await, 401, "unauthorized");
}

#[tokio::test]
async fn bad_show_bodies_get_precise_errors_and_change_nothing() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_error(&app.post_admin("/api/admin/shows", Some(ADMIN_TOKEN), "{not json").await, 400, "bad_request");
    let mut wrong_type = improv();
    wrong_type["holdSeconds"] = json!("ten");
    assert_error(&app.create_show(&wrong_type).await, 400, "bad_request");

    let mut zero_hold = improv();
    zero_hold["holdSeconds"] = json!(0);
    let answer = app.create_show(&zero_hold).await;
    assert_error(&answer, 422, "invalid_show");
    assert!(answer.body["message"].as_str().unwrap_or_default().contains("holdSeconds"), "{answer:?}");

    let mut clash = improv();
    clash["areas"][0]["id"] = json!("B7");
    assert_error(&app.create_show(&clash).await, 422, "invalid_show");
    assert_error(&app.create_show(&json!({"name": "No id", "seats": []})).await, 422, "invalid_show");

    assert_eq!(app.get("/api/shows").await.body["shows"], json!([]), "no show was created");
}

#[tokio::test]
async fn admin_bodies_may_be_large_but_not_unbounded() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let seats: Vec<Value> = (0..5000)
        .map(|n| json!({"id": format!("S{n}"), "x": n % 100, "y": n / 100, "label": "x".repeat(20)}))
        .collect();
    let big = json!({"id": "arena", "name": "Arena", "seats": seats});
    assert!(big.to_string().len() > 64 * 1024);
    assert_eq!(app.create_show(&big).await.status, 201);

    let huge = format!("{{\"id\": \"huge\", \"name\": \"{}\"}}", "x".repeat(16 * 1024 * 1024 + 1));
    assert_error(&app.post_admin("/api/admin/shows", Some(ADMIN_TOKEN), huge).await, 413, "payload_too_large");
}

#[tokio::test]
async fn shows_and_seat_maps_read_back_as_created() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    app.create_show(&improv()).await;

    let list = app.get("/api/shows").await;
    assert_eq!(list.status, 200);
    assert_eq!(
        list.body["shows"],
        json!([{"id": "impro-2026-11-14", "name": "Improv night", "seatCount": 2, "areaCount": 1}])
    );

    let show = app.get("/api/shows/impro-2026-11-14").await;
    assert_eq!(show.body["latePolicy"], "reject");
    assert_eq!(show.body["areas"][0], json!({"id": "standing", "name": "Standing", "capacity": 50}));

    let map = app.get("/api/shows/impro-2026-11-14/seats").await;
    assert_eq!(map.status, 200);
    assert_eq!(map.body["showId"], "impro-2026-11-14");
    assert_eq!(map.body["seats"][0], json!({"id": "B7", "sold": false, "holdExpiresAt": null, "mine": false}));
    assert_eq!(map.body["areas"][0], json!({"id": "standing", "capacity": 50, "sold": 0, "holds": []}));
    assert_eq!(map.body["serverTime"].as_i64(), map.server_time_header);
}

#[tokio::test]
async fn unknown_shows_and_paths_answer_in_the_error_format() {
    let app = TestApp::new(None).await;
    assert_error(&app.get("/api/shows/nope").await, 404, "unknown_show");
    assert_error(&app.get("/api/shows/nope/seats").await, 404, "unknown_show");
    assert_error(&app.get("/api/no-such-endpoint").await, 404, "not_found");
    let answer = app.post_admin("/api/time", None, "").await;
    assert_error(&answer, 405, "method_not_allowed");
}

#[tokio::test]
async fn a_json_array_is_not_a_body() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let array = json!(["impro", "Improv night", 600]).to_string();
    assert_error(&app.post_admin("/api/admin/shows", Some(ADMIN_TOKEN), array).await, 400, "bad_request");
}
