//! Webhook deliveries with two server processes on one PostgreSQL database
//! (`SEATHOLD_TEST_POSTGRES`): both senders take lanes, yet each attempt
//! is sent by exactly one, and every event still arrives in version order.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[path = "support/hooks.rs"]
mod hooks;
#[path = "postgres/mod.rs"]
mod postgres;
#[path = "support/receiver.rs"]
mod receiver;
mod support;

use std::sync::Arc;

use seathold_core::store::{EventKind, PostgresStore};
use seathold_core::webhooks::Deliveries;
use seathold_server::state::Settings;

use hooks::{
    SALE_EVENTS, SECRET, add_webhook, check_in_order, deliveries, expected, fast, sale, shows, wait_delivered,
};
use receiver::{Policy, Receiver};
use support::{ADMIN_TOKEN, TestApp};

async fn process(url: &str) -> (TestApp, Deliveries) {
    let store = Arc::new(PostgresStore::open(url).await.unwrap());
    let settings = Settings { admin_token: Some(Arc::from(ADMIN_TOKEN)), ..Settings::default() };
    let app = TestApp::over_store_on_system_clock(store, settings);
    let sender = seathold_server::webhooks::start(&app.state, fast()).unwrap();
    (app, sender)
}

/// A counter's value in an app's `/metrics`.
async fn counter(app: &TestApp, name: &str) -> u64 {
    let text = app.get("/metrics").await.body.as_str().unwrap().to_owned();
    let line = text.lines().find(|line| line.starts_with(&format!("{name} "))).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_send_each_attempt_once_and_every_event_in_order() {
    let url = postgres::fresh_database().await;
    let (one, _one_sends) = process(&url).await;
    let (two, _two_sends) = process(&url).await;
    let receiver = Receiver::start(SECRET, Policy::Flaky { seed: 0x5eed_0002, failure_rate: 0.3 }).await;
    let id = add_webhook(&one, &receiver.url, &EventKind::ALL.map(EventKind::name)).await;
    let names = ["north", "south", "east"];
    shows(&two, &names).await;
    sale(&one, "north", 0).await;
    sale(&two, "south", 0).await;
    sale(&two, "north", 1).await;
    sale(&one, "east", 0).await;
    sale(&two, "east", 1).await;
    sale(&one, "south", 1).await;

    let done = wait_delivered(&two, &id).await;
    let log = receiver.log();
    let requests = check_in_order(&log, &expected(one.store.as_ref(), &names, &EventKind::ALL, 0).await);
    assert!(log.iter().any(|received| !received.acknowledged()), "the seed made some attempts fail");
    assert_eq!(done["attempts"], requests as u64, "every request was one recorded attempt: {done}");
    assert_eq!(receiver.most_at_once_per_show(), 1, "one delivery per show at a time, over both processes");
    let sent = counter(&one, "seathold_webhook_deliveries_sent_total").await
        + counter(&two, "seathold_webhook_deliveries_sent_total").await;
    let failed = counter(&one, "seathold_webhook_deliveries_failed_total").await
        + counter(&two, "seathold_webhook_deliveries_failed_total").await;
    assert_eq!(sent, 6 * SALE_EVENTS, "each event acknowledged once, by one process");
    assert_eq!(sent + failed, requests as u64);
    assert_eq!(deliveries(&one, &id).await, done, "both processes read one record");
}
