//! Webhook deliveries against a real receiver on 127.0.0.1 (API.md "Box
//! office (v3)", A delivery): every event of a webhook's kinds arrives,
//! signed, in version order per show, through a receiver that fails at
//! random, hangs, or is down across a restart; an event that keeps failing
//! is parked and the next one goes.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[path = "support/hooks.rs"]
mod hooks;
#[path = "support/receiver.rs"]
mod receiver;
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use seathold_core::store::{EventKind, SqliteStore, Store};
use seathold_core::webhooks::{Deliveries, WebhookSettings};
use seathold_server::state::Settings;

use hooks::{
    SALE_EVENTS, SECRET, add_webhook, check_in_order, deliveries, expected, fast, sale, shows, wait_delivered, wait_for,
};
use receiver::{Policy, Receiver};
use support::{ADMIN_TOKEN, TestApp, show_with};

fn admin() -> Settings {
    Settings { admin_token: Some(Arc::from(ADMIN_TOKEN)), ..Settings::default() }
}

async fn app_with_deliveries(settings: WebhookSettings) -> (TestApp, Deliveries) {
    let app = TestApp::with_settings(admin()).await;
    let sender = seathold_server::webhooks::start(&app.state, settings).unwrap();
    (app, sender)
}

#[tokio::test]
async fn a_flaky_receiver_gets_every_event_of_its_kinds_in_order_and_signed() {
    let (app, _sender) = app_with_deliveries(fast()).await;
    let flaky = Receiver::start(SECRET, Policy::Flaky { seed: 0x5eed_0001, failure_rate: 0.4 }).await;
    let steady = Receiver::start(SECRET, Policy::Accept).await;
    let all = add_webhook(&app, &flaky.url, &EventKind::ALL.map(EventKind::name)).await;
    let sales = add_webhook(&app, &steady.url, &["confirmed", "expired"]).await;
    shows(&app, &["north", "south"]).await;
    let expiring = show_with("brief", 2, 0, json!({"holdSeconds": 1, "areas": []}));
    assert_eq!(app.create_show(&expiring).await.status, 201);
    let token = app.session().await;
    assert_eq!(app.hold(&token, "brief", json!({"seats": ["A1"]})).await.status, 201);
    sale(&app, "north", 0).await;
    sale(&app, "south", 0).await;
    sale(&app, "north", 1).await;
    // The deadline itself is what is waited for: then the sweep journals the expiry.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(app.sweep().await, 1);

    let done = wait_delivered(&app, &all).await;
    wait_delivered(&app, &sales).await;
    let shows = ["north", "south", "brief"];
    let log = flaky.log();
    let requests = check_in_order(&log, &expected(app.store.as_ref(), &shows, &EventKind::ALL, 0).await);
    let acknowledged = log.iter().filter(|received| received.acknowledged()).count() as u64;
    assert_eq!(acknowledged, 3 * SALE_EVENTS + 2, "three rounds of sale, a hold and its expiry");
    assert!(log.iter().any(|received| !received.acknowledged()), "the seed made some attempts fail");
    assert_eq!(done["attempts"], requests as u64, "{done}");
    assert_eq!(done["failed"], 0);
    let kinds = [EventKind::Confirmed, EventKind::Expired];
    check_in_order(&steady.log(), &expected(app.store.as_ref(), &shows, &kinds, 0).await);
    assert_eq!(flaky.most_at_once_per_show(), 1, "one delivery per show at a time");

    let sample = log.iter().find(|received| received.body["kind"] == "held" && received.show() == "north").unwrap();
    let body = &sample.body;
    assert_eq!(body["seats"], json!(["A1", "A2"]), "{body}");
    assert_eq!(body["areas"], json!({}), "{body}");
    assert!(body["at"].as_i64().unwrap() > 0 && body["holdId"].is_string(), "{body}");
    let area = log
        .iter()
        .find(|received| received.body["kind"] == "released" && received.body["areas"] == json!({"floor": 2}));
    assert!(area.is_some(), "the operator's release names the hold's area quantities");
    let block = log.iter().find(|received| received.body["kind"] == "blocked").unwrap();
    assert_eq!((&block.body["holdId"], &block.body["seats"]), (&json!(null), &json!(["A4"])));

    let metrics = app.get("/metrics").await.body.as_str().unwrap().to_owned();
    for name in [
        "seathold_webhook_deliveries_sent_total",
        "seathold_webhook_deliveries_failed_total",
        "seathold_webhook_lag_seconds_bucket",
    ] {
        assert!(metrics.contains(name), "{name} missing from /metrics");
    }
}

#[tokio::test]
async fn a_receiver_that_does_not_answer_costs_the_sale_nothing() {
    let settings = WebhookSettings { timeout: Duration::from_secs(120), ..fast() };
    let (app, _sender) = app_with_deliveries(settings).await;
    let stuck = Receiver::start(SECRET, Policy::Hang).await;
    let id = add_webhook(&app, &stuck.url, &EventKind::ALL.map(EventKind::name)).await;
    shows(&app, &["north"]).await;
    let started = Instant::now();
    sale(&app, "north", 0).await;
    sale(&app, "north", 1).await;
    let took = started.elapsed();
    // The whole sale went through while the first delivery waits for an answer.
    let waiting = wait_for(&app, &id, "the first delivery under way", |_| stuck.most_at_once_per_show() == 1).await;
    assert!(stuck.log().is_empty(), "nothing was answered yet");
    assert_eq!(waiting["attempts"], 0, "{waiting}");
    assert_eq!(waiting["pending"], 2 * SALE_EVENTS, "{waiting}");
    assert!(took < Duration::from_secs(30), "the sale took {took:?}");

    stuck.set_policy(Policy::Accept);
    wait_delivered(&app, &id).await;
    check_in_order(&stuck.log(), &expected(app.store.as_ref(), &["north"], &EventKind::ALL, 0).await);
}

#[tokio::test]
async fn an_event_refused_for_the_whole_retry_period_is_parked_and_the_next_goes() {
    let settings = WebhookSettings { give_up: Duration::from_millis(300), ..fast() };
    let (app, _sender) = app_with_deliveries(settings).await;
    // Version 1 of the show is its first hold: refused every time.
    let receiver = Receiver::start(SECRET, Policy::RefuseVersion(1)).await;
    let id = add_webhook(&app, &receiver.url, &["held", "confirmed", "released"]).await;
    shows(&app, &["north"]).await;
    sale(&app, "north", 0).await;

    let done = wait_for(&app, &id, "the first event parked and the rest delivered", |deliveries| {
        deliveries["pending"] == 0 && deliveries["failed"] == 1
    })
    .await;
    let log = receiver.log();
    let refused = log.iter().filter(|received| received.version() == 1).count();
    assert!(refused >= 3, "tried more than once before parking: {refused}");
    assert!(log.iter().filter(|received| received.version() == 1).all(|received| !received.acknowledged()));
    let kinds = [EventKind::Held, EventKind::Confirmed, EventKind::Released];
    let rest = expected(app.store.as_ref(), &["north"], &kinds, 1).await;
    assert!(!rest["north"].is_empty());
    let later: Vec<_> = log.iter().filter(|received| received.version() > 1).cloned().collect();
    check_in_order(&later, &rest);
    assert_eq!(done["lastStatus"], 204, "{done}");
    assert_eq!(done["lastError"], json!(null), "{done}");
    let metrics = app.get("/metrics").await.body.as_str().unwrap().to_owned();
    assert!(metrics.contains("seathold_webhook_deliveries_parked_total 1"), "{metrics}");
}

#[tokio::test]
async fn a_restart_in_the_middle_of_retries_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.db");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
    let app = TestApp::over_store_on_system_clock(store, admin());
    let sender = seathold_server::webhooks::start(&app.state, fast()).unwrap();
    let receiver = Receiver::start(SECRET, Policy::Refuse).await;
    let id = add_webhook(&app, &receiver.url, &EventKind::ALL.map(EventKind::name)).await;
    shows(&app, &["north"]).await;
    sale(&app, "north", 0).await;
    let before =
        wait_for(&app, &id, "a few refused attempts", |deliveries| deliveries["attempts"].as_u64() >= Some(3)).await;
    assert_eq!(before["lastStatus"], 500, "{before}");
    assert_eq!(before["lastError"], "answered 500 Internal Server Error", "{before}");

    // The process goes away: its sender, its writers, its store.
    sender.stop().await;
    drop(app);
    let store = reopen(&path).await;
    let app = TestApp::over_store_on_system_clock(store, admin());
    let _sender = seathold_server::webhooks::start(&app.state, fast()).unwrap();
    receiver.set_policy(Policy::Accept);
    let after = wait_delivered(&app, &id).await;
    assert!(after["attempts"].as_u64() > before["attempts"].as_u64(), "{after}");
    check_in_order(&receiver.log(), &expected(app.store.as_ref(), &["north"], &EventKind::ALL, 0).await);
    assert_eq!(deliveries(&app, &id).await["lastStatus"], 204);
}

/// Opens the SQLite file again once the old process's last handle on it is
/// gone (its show writers end as their queues close).
async fn reopen(path: &std::path::Path) -> Arc<dyn Store> {
    let started = Instant::now();
    loop {
        match SqliteStore::open(path).await {
            Ok(store) => return Arc::new(store),
            Err(error) if started.elapsed() < Duration::from_secs(10) => {
                assert!(error.to_string().contains("already in use"), "{error:#}");
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(error) => panic!("the old store never let go of the file: {error:#}"),
        }
    }
}
