//! A show is loaded from storage once per process, however many requests
//! ask for it first at the same moment (a restarted process mid-sale).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use serde_json::json;
use support::{ADMIN_TOKEN, TestApp, show_with};

fn loads(metrics: &str) -> u64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("seathold_show_loads_total "))
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn concurrent_first_requests_load_a_show_once() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("cold", 50, 5, json!({}))).await.status, 201);
    let app = app.restart();
    let firsts = (0..40).map(|_| app.get("/api/shows/cold/seats"));
    for answer in futures_util::future::join_all(firsts).await {
        assert_eq!(answer.status, 200, "{answer:?}");
    }
    let metrics = app.get("/metrics").await;
    assert_eq!(loads(metrics.body.as_str().unwrap_or_default()), 1, "the show was loaded more than once");
}
