//! Sessions, health and metrics through the router on a real SQLite file.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use axum::body::Body;
use axum::http::Request;
use support::{TestApp, assert_error};

#[tokio::test]
async fn a_session_has_a_long_random_token_a_holder_id_and_a_strict_cookie() {
    let app = TestApp::new(None).await;
    let first = app.send(Request::post("/api/sessions").body(Body::empty()).unwrap()).await;
    assert_eq!(first.status, 201, "{first:?}");
    let token = first.body["token"].as_str().unwrap().to_owned();
    assert!(token.len() >= 32, "at least 128 bits as hex: {token}");
    assert!(first.body["holderId"].as_str().is_some_and(|h| !h.is_empty()));
    assert_eq!(first.body["serverTime"].as_i64(), first.server_time_header);
    let cookie = first.headers["set-cookie"].to_str().unwrap();
    assert_eq!(cookie, format!("seathold_session={token}; HttpOnly; SameSite=Strict; Path=/"));

    let second = app.send(Request::post("/api/sessions").body(Body::empty()).unwrap()).await;
    assert_ne!(second.body["token"], first.body["token"]);
    assert_ne!(second.body["holderId"], first.body["holderId"]);
}

#[tokio::test]
async fn health_answers_when_the_store_does() {
    let app = TestApp::new(None).await;
    assert_eq!(app.get("/healthz").await.status, 200);
}

#[tokio::test]
async fn metrics_name_the_counters_and_time_requests_by_route() {
    let app = TestApp::new(None).await;
    app.get("/api/time").await;
    let answer = app.get("/metrics").await;
    assert_eq!(answer.status, 200);
    let text = answer.body.as_str().unwrap();
    for name in [
        "seathold_holds_created_total",
        "seathold_holds_confirmed_total",
        "seathold_holds_expired_total",
        "seathold_holds_released_total",
        "seathold_hold_conflicts_total",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    assert!(
        text.contains("seathold_http_request_duration_seconds_bucket{") && text.contains("route=\"/api/time\""),
        "latency by route missing from:\n{text}"
    );
}

#[tokio::test]
async fn unknown_session_tokens_are_unauthorized_where_a_session_is_needed() {
    let app = TestApp::new(None).await;
    let answer =
        app.send(Request::get("/api/holds").header("authorization", "Bearer nope").body(Body::empty()).unwrap()).await;
    assert_error(&answer, 401, "unauthorized");
}

#[tokio::test]
async fn the_session_cookie_works_like_the_bearer_token() {
    let app = TestApp::new(None).await;
    let token = app.session().await;
    let with_cookie = |cookie: String| Request::get("/api/holds").header("cookie", cookie).body(Body::empty()).unwrap();
    let answer = app.send(with_cookie(format!("theme=dark; seathold_session={token}"))).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.body["holds"], serde_json::json!([]));
    assert_error(&app.send(with_cookie("seathold_session=forged".into())).await, 401, "unauthorized");
}
