//! A request body that does not arrive in time is answered `408
//! request_timeout` and changes nothing; one that arrives late but within
//! the deadline is decided as usual. Time is tokio's paused clock here, so
//! the test waits for nothing.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use serde_json::json;
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

use seathold_server::extract::BODY_DEADLINE;

/// A hold request whose body arrives after `delay`, or never.
fn slow_hold(token: &str, delay: Option<Duration>) -> Request<Body> {
    let body = json!({"seats": ["A1"]}).to_string();
    let stream = futures_util::stream::once(async move {
        match delay {
            Some(delay) => tokio::time::sleep(delay).await,
            None => std::future::pending::<()>().await,
        }
        Ok::<_, std::io::Error>(body)
    });
    Request::post("/api/shows/slow/holds")
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Body::from_stream(stream))
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_body_that_never_arrives_is_a_timeout_and_changes_nothing() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("slow", 3, 5, json!({}))).await.status, 201);
    let token = app.session().await;
    let answer = app.send(slow_hold(&token, None)).await;
    assert_error(&answer, 408, "request_timeout");
    let seats = app.get("/api/shows/slow/seats").await;
    assert_eq!(seats.body["version"], 0, "{seats:?}");
}

#[tokio::test(start_paused = true)]
async fn a_body_that_arrives_late_within_the_deadline_is_decided() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("slow", 3, 5, json!({}))).await.status, 201);
    let token = app.session().await;
    let answer = app.send(slow_hold(&token, Some(BODY_DEADLINE - Duration::from_secs(1)))).await;
    assert_eq!(answer.status, 201, "{answer:?}");
}
