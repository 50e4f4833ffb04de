//! Webhook test helpers: adding one, waiting for its deliveries, a small
//! sale with every kind of event, and the check that a receiver got each
//! event of its kinds, in version order per show.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use seathold_core::store::{EventKind, Store};
use seathold_core::webhooks::WebhookSettings;

use crate::receiver::Received;
use crate::support::{ADMIN_TOKEN, TestApp, show_with};

pub const SECRET: &str = "whsec_test_9f2c";

/// How long deliveries may take on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(60);

/// API.md's schedule, shortened (the test-only knobs) so retries come fast.
pub fn fast() -> WebhookSettings {
    WebhookSettings {
        timeout: Duration::from_secs(5),
        first_retry: Duration::from_millis(20),
        give_up: Duration::from_secs(3600),
        poll: Duration::from_millis(20),
    }
}

/// Adds a webhook; its id.
pub async fn add_webhook(app: &TestApp, url: &str, events: &[&str]) -> String {
    let body = json!({"url": url, "secret": SECRET, "events": events});
    let answer = app.call("POST", "/api/admin/webhooks", Some(ADMIN_TOKEN), Some(body)).await;
    assert_eq!(answer.status, 201, "{answer:?}");
    answer.body["id"].as_str().unwrap().to_owned()
}

/// `GET /api/admin/webhooks`: one webhook's `deliveries`.
pub async fn deliveries(app: &TestApp, id: &str) -> Value {
    let answer = app.call("GET", "/api/admin/webhooks", Some(ADMIN_TOKEN), None).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let webhooks = answer.body["webhooks"].as_array().unwrap();
    webhooks.iter().find(|webhook| webhook["id"] == id).unwrap()["deliveries"].clone()
}

/// Waits until a webhook's `deliveries` meet `done` (checked every 20 ms).
pub async fn wait_for(app: &TestApp, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let now = deliveries(app, id).await;
        if done(&now) {
            return now;
        }
        assert!(started.elapsed() < PATIENCE, "waited {PATIENCE:?} for {what}; deliveries: {now}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until nothing is pending and `count` deliveries were acknowledged.
pub async fn wait_delivered(app: &TestApp, id: &str) -> Value {
    wait_for(app, id, "every event delivered", |deliveries| deliveries["pending"] == 0).await
}

/// Two sessions' business on `show`, round `round` (each round its own
/// seats): a hold extended and confirmed, one released, an area hold
/// released by the operator, a seat blocked and unblocked: nine events, of
/// every kind but `expired`.
pub async fn sale(app: &TestApp, show: &str, round: usize) {
    let seat = |n: usize| format!("A{}", round * 4 + n);
    let (ana, ben) = (app.session().await, app.session().await);
    let hold = |token: &str, body| {
        let (app, token) = (app, token.to_owned());
        async move {
            let answer = app.hold(&token, show, body).await;
            assert_eq!(answer.status, 201, "{answer:?}");
            answer.body["holdId"].as_str().unwrap().to_owned()
        }
    };
    let first = hold(&ana, json!({"seats": [seat(1), seat(2)]})).await;
    assert_eq!(app.call("POST", &format!("/api/holds/{first}/extend"), Some(&ana), None).await.status, 200);
    assert_eq!(app.call("POST", &format!("/api/holds/{first}/confirm"), Some(&ana), None).await.status, 200);
    let second = hold(&ben, json!({"seats": [seat(3)]})).await;
    assert_eq!(app.call("DELETE", &format!("/api/holds/{second}"), Some(&ben), None).await.status, 204);
    let third = hold(&ben, json!({"areas": {"floor": 2}})).await;
    let released = app.call("POST", &format!("/api/admin/holds/{third}/release"), Some(ADMIN_TOKEN), None).await;
    assert_eq!(released.status, 200, "{released:?}");
    for method in ["POST", "DELETE"] {
        let body = json!({"seats": [seat(4)], "reason": "camera"});
        let answer = app.call(method, &format!("/api/admin/shows/{show}/blocked"), Some(ADMIN_TOKEN), Some(body)).await;
        assert_eq!(answer.status, 200, "{answer:?}");
    }
}

/// Events one round of [`sale`] makes.
pub const SALE_EVENTS: u64 = 9;

/// Creates shows `ids` (seats A1…A20, a floor of 10: five rounds of [`sale`]).
pub async fn shows(app: &TestApp, ids: &[&str]) {
    for id in ids {
        let answer = app.create_show(&show_with(id, 20, 10, json!({"maxActiveHoldsPerHolder": 5}))).await;
        assert_eq!(answer.status, 201, "{answer:?}");
    }
}

/// An event as a receiver should get it: version, kind, hold id.
pub type Event = (i64, String, Option<String>);

/// Per show, the events expected in order.
pub type Expected = BTreeMap<String, Vec<Event>>;

/// The events of `kinds` that `shows`' journals hold after `after`
/// (version), by show: `(version, kind, hold id)`.
pub async fn expected(store: &dyn Store, shows: &[&str], kinds: &[EventKind], after: i64) -> Expected {
    let mut expected = BTreeMap::new();
    for show in shows {
        let journal = store.journal(show, after).await.unwrap();
        let events = journal
            .iter()
            .filter(|entry| kinds.contains(&EventKind::of(&entry.change)))
            .map(|entry| {
                (
                    entry.version,
                    EventKind::of(&entry.change).name().to_owned(),
                    entry.change.hold_id().map(ToString::to_string),
                )
            })
            .collect();
        expected.insert((*show).to_owned(), events);
    }
    expected
}

/// Checks what a receiver got against `expected`: every delivery signed;
/// per show, the acknowledged ones are exactly the expected events, in
/// version order, each acknowledged once, and no event was sent before the
/// one ahead of it was acknowledged. Returns how many requests it got.
pub fn check_in_order(log: &[Received], expected: &Expected) -> usize {
    assert!(log.iter().all(|received| received.signed), "an unsigned or badly signed delivery: {log:#?}");
    for (show, events) in expected {
        let mine: Vec<&Received> = log.iter().filter(|received| received.show() == show).collect();
        let acknowledged: Vec<Event> = mine
            .iter()
            .filter(|received| received.acknowledged())
            .map(|received| {
                let body = &received.body;
                assert_eq!(received.id(), format!("{show}:{}", received.version()), "{body}");
                (
                    received.version(),
                    body["kind"].as_str().unwrap().to_owned(),
                    body["holdId"].as_str().map(str::to_owned),
                )
            })
            .collect();
        assert_eq!(&acknowledged, events, "show {show}: acknowledged deliveries against the journal");
        // Each request is for the event after the last acknowledged one, or that one again.
        let mut done = 0;
        for received in &mine {
            let next = events.iter().find(|(version, ..)| *version > done).map(|(version, ..)| *version);
            assert_eq!(Some(received.version()), next, "show {show}: sent out of order after {done}");
            if received.acknowledged() {
                done = received.version();
            }
        }
    }
    log.len()
}
