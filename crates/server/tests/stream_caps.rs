//! Live streams are capped per address and in total: beyond the cap a new
//! stream gets `503 unavailable` with `Retry-After` (the page polls the seat
//! map meanwhile); a stream's slot frees when it ends; the seat map and
//! other addresses are untouched.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::Response;
use serde_json::json;
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};
use tower::ServiceExt;

use seathold_server::limits::{Limits, StreamCaps};
use seathold_server::state::Settings;

fn from(address: &str) -> Request<Body> {
    Request::get("/api/shows/live/events").header("x-forwarded-for", address).body(Body::empty()).unwrap()
}

/// Opens a stream and keeps it open (the response, body unread).
async fn open(app: &TestApp, address: &str) -> Response {
    app.router.clone().oneshot(from(address)).await.unwrap()
}

#[tokio::test]
async fn streams_beyond_the_caps_get_503_and_slots_free_when_streams_end() {
    let limits =
        Limits { streams: StreamCaps { total: 3, per_address: 2 }, trust_forwarded_for: true, ..Limits::default() };
    let app =
        TestApp::with_settings(Settings { admin_token: Some(ADMIN_TOKEN.into()), limits, ..Settings::default() }).await;
    assert_eq!(app.create_show(&show_with("live", 3, 5, json!({}))).await.status, 201);

    let first = open(&app, "203.0.113.1").await;
    let second = open(&app, "203.0.113.1").await;
    assert_eq!((first.status(), second.status()), (StatusCode::OK, StatusCode::OK));
    let over_address = app.send(from("203.0.113.1")).await;
    assert_error(&over_address, 503, "unavailable");
    assert_eq!(over_address.headers["retry-after"], "10");

    let elsewhere = open(&app, "198.51.100.2").await;
    assert_eq!(elsewhere.status(), StatusCode::OK, "another address is untouched");
    assert_error(&app.send(from("198.51.100.3")).await, 503, "unavailable");
    assert_eq!(app.state.streams.open(), 3);

    // The fallback keeps working while streams are full.
    assert_eq!(app.get("/api/shows/live/seats").await.status, 200);

    drop(first);
    assert_eq!(app.state.streams.open(), 2);
    assert_eq!(open(&app, "203.0.113.1").await.status(), StatusCode::OK, "a closed stream's slot is free again");
    drop((second, elsewhere));
}
