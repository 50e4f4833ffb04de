//! API.md "Box office (v2)", Operator: a show's active holds, releasing
//! anyone's hold, stats, the journal export and the per-show metrics.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, Answer, TestApp, assert_error, show_with};

async fn admin(app: &TestApp, method: &str, path: &str, accept: Option<&str>) -> Answer {
    let mut request =
        Request::builder().method(method).uri(path).header("authorization", format!("Bearer {ADMIN_TOKEN}"));
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    app.send(request.body(Body::empty()).unwrap()).await
}

/// Show `op` (seats A1..A4, two in category `a`), Ann holding A1 and Bob
/// holding A2 then confirming it.
async fn sold_and_held() -> (TestApp, String, String) {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let mut show = show_with("op", 4, 5, json!({"maxActiveHoldsPerHolder": 2}));
    show["seats"][0]["category"] = json!("a");
    show["seats"][1]["category"] = json!("a");
    assert_eq!(app.create_show(&show).await.status, 201);
    let (ann, bob) = (app.session().await, app.session().await);
    assert_eq!(app.hold(&ann, "op", json!({"holdId": "ann-hold-1", "seats": ["A1"]})).await.status, 201);
    assert_eq!(app.hold(&bob, "op", json!({"holdId": "bob-hold-1", "seats": ["A2"]})).await.status, 201);
    assert_eq!(app.call("POST", "/api/holds/bob-hold-1/confirm", Some(&bob), None).await.status, 200);
    (app, ann, bob)
}

#[tokio::test]
async fn the_operator_lists_active_holds_with_their_holders() {
    let (app, _, _) = sold_and_held().await;
    let listed = admin(&app, "GET", "/api/admin/shows/op/holds", None).await;
    assert_eq!(listed.status, 200, "{listed:?}");
    let holds = listed.body["holds"].as_array().unwrap();
    assert_eq!(holds.len(), 1, "the confirmed hold is not active: {holds:?}");
    assert_eq!((holds[0]["holdId"].as_str(), &holds[0]["seats"]), (Some("ann-hold-1"), &json!(["A1"])));
    assert!(holds[0]["holder"].as_str().is_some_and(|h| !h.is_empty()));
    assert!(holds[0]["expiresAt"].as_i64() > holds[0]["createdAt"].as_i64());
    assert_error(&app.get("/api/admin/shows/op/holds").await, 401, "unauthorized");
    assert_error(&admin(&app, "GET", "/api/admin/shows/nope/holds", None).await, 404, "unknown_show");
}

#[tokio::test]
async fn the_operator_releases_anyones_hold_but_not_a_sold_one() {
    let (app, _, _) = sold_and_held().await;
    let released = admin(&app, "POST", "/api/admin/holds/ann-hold-1/release", None).await;
    assert_eq!((released.status.as_u16(), released.body["status"].as_str()), (200, Some("RELEASED")), "{released:?}");
    let seats = app.get("/api/shows/op/seats").await.body["seats"].clone();
    assert_eq!(seats[0]["holdExpiresAt"], Value::Null, "A1 is free again: {seats}");
    assert_error(&admin(&app, "POST", "/api/admin/holds/bob-hold-1/release", None).await, 409, "already_confirmed");
    assert_error(&admin(&app, "POST", "/api/admin/holds/nobody-hold/release", None).await, 404, "no_hold");
    let journal = admin(&app, "GET", "/api/admin/shows/op/journal", None).await;
    let last: Value = serde_json::from_str(journal.body.as_str().unwrap().lines().last().unwrap()).unwrap();
    assert_eq!((last["action"].as_str(), last["holder"].as_str()), (Some("released"), Some("operator")));
}

#[tokio::test]
async fn stats_count_places_by_category_and_holds_by_outcome() {
    let (app, _, _) = sold_and_held().await;
    let stats = admin(&app, "GET", "/api/admin/shows/op/stats", None).await;
    assert_eq!(stats.status, 200, "{stats:?}");
    let body = &stats.body;
    // Seats A1..A4 and 5 floor places: A1 held, A2 sold.
    assert_eq!(
        (&body["free"], &body["held"], &body["sold"], &body["blocked"]),
        (&json!(7), &json!(1), &json!(1), &json!(0))
    );
    assert_eq!(body["byCategory"]["a"], json!({"free": 0, "held": 1, "sold": 1, "blocked": 0}));
    assert_eq!(body["holds"], json!({"created": 2, "confirmed": 1, "expired": 0, "released": 0}));
    assert_eq!(body["conversion"], 0.5);
    assert!(body["medianSecondsToConfirm"].as_f64().is_some_and(|s| s >= 0.0), "{body}");
    assert_eq!(body["serverTime"].as_i64(), stats.server_time_header);
}

#[tokio::test]
async fn the_journal_exports_as_json_lines_or_csv_oldest_first() {
    let (app, _, _) = sold_and_held().await;
    let lines = admin(&app, "GET", "/api/admin/shows/op/journal", None).await;
    assert_eq!(lines.status, 200);
    assert!(lines.headers["content-type"].to_str().unwrap().starts_with("application/jsonl"));
    let entries: Vec<Value> = lines.body.as_str().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let actions: Vec<&str> = entries.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["created", "created", "confirmed"]);
    assert_eq!((entries[0]["version"].as_i64(), entries[0]["seats"].as_str()), (Some(1), Some("A1")));
    let csv = admin(&app, "GET", "/api/admin/shows/op/journal", Some("text/csv")).await;
    assert!(csv.headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    let text = csv.body.as_str().unwrap().to_owned();
    let mut rows = text.lines();
    assert_eq!(rows.next(), Some("version,at,holdId,holder,action,seats,areas,expiresAt,extensions,late,reason"));
    assert!(rows.next().unwrap().starts_with("1,"));
    assert_eq!(rows.last().unwrap().split(',').nth(4), Some("confirmed"));
}

#[tokio::test]
async fn metrics_give_conversion_and_expiry_per_show_and_time_to_confirm() {
    let (app, _, _) = sold_and_held().await;
    let text = app.get("/metrics").await.body.as_str().unwrap().to_owned();
    assert!(text.contains("seathold_show_conversion_ratio{show=\"op\"} 0.5"), "{text}");
    assert!(text.contains("seathold_show_expiry_ratio{show=\"op\"} 0.0"), "{text}");
    assert!(text.contains("seathold_show_holds_total{show=\"op\",outcome=\"created\"} 2"), "{text}");
    assert!(text.contains("seathold_time_to_confirm_seconds_count 1"), "{text}");
}

#[tokio::test]
async fn the_journal_and_the_charts_on_one_process_include_what_another_committed() {
    use seathold_core::clock::TestClock;
    use seathold_core::store::SharedMemoryStore;
    use std::sync::Arc;

    let clock = TestClock::at(seat_state::ServerMillis(1_800_000_000_000));
    let store = SharedMemoryStore::new(clock.shared());
    let a = TestApp::over_store(Some(ADMIN_TOKEN), Arc::new(store.clone()), &clock);
    let b = TestApp::over_store(Some(ADMIN_TOKEN), Arc::new(store), &clock);
    assert_eq!(a.create_show(&show_with("op", 4, 5, json!({}))).await.status, 201);
    // Process A's writer is up before B writes.
    let before = admin(&a, "GET", "/api/admin/shows/op/journal", None).await;
    assert_eq!((before.status.as_u16(), before.body.as_str().unwrap_or_default().lines().count()), (200, 0));
    let ann = b.session().await;
    assert_eq!(b.hold(&ann, "op", json!({"holdId": "ann-hold-1", "seats": ["A1"]})).await.status, 201);
    assert_eq!(b.call("POST", "/api/holds/ann-hold-1/confirm", Some(&ann), None).await.status, 200);

    // A's writer catches up before it answers: the export is the journal at its version.
    let journal = admin(&a, "GET", "/api/admin/shows/op/journal", None).await;
    let lines: Vec<Value> = journal.body.as_str().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let actions: Vec<&Value> = lines.iter().map(|line| &line["action"]).collect();
    assert_eq!(actions, [&json!("created"), &json!("confirmed")], "{lines:?}");
    let charts = admin(&a, "GET", "/api/admin/shows/op/onsale", None).await.body;
    let holds: u64 = charts["minutes"].as_array().unwrap().iter().filter_map(|m| m["holds"].as_u64()).sum();
    let confirms: u64 = charts["minutes"].as_array().unwrap().iter().filter_map(|m| m["confirms"].as_u64()).sum();
    assert_eq!((holds, confirms), (1, 1), "{charts}");
}
