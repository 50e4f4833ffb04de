//! When the server has no room for another live stream (`503` with
//! `Retry-After`, API.md's Limits), the seat map falls back to polling:
//! it keeps current (another customer's hold appears on it) and says so
//! quietly, without an alert; a hold still works.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::api::Api;
use seathold_system_tests::{Customer, Server};
use serde_json::json;

const THEATRE: &str = "demo-theatre";

#[tokio::test]
async fn with_no_stream_to_spare_the_map_polls_and_stays_current() -> anyhow::Result<()> {
    let server = Server::start(&["--max-streams", "0"]).await?;
    // The premise: the stream is refused, with a time to come back.
    let refused = reqwest::get(format!("{}/api/shows/{THEATRE}/events", server.base_url)).await?;
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().contains_key("retry-after"), "{:?}", refused.headers());

    let alice = Customer::start(&server, "alice").await?;
    alice.browser.client.goto(&format!("{}/shows/{THEATRE}", server.base_url)).await?;
    alice.wait_for("the seat map", "document.querySelectorAll('[data-seat-id]').length === 160").await?;
    alice.wait_for("the polling status", "document.querySelector('.connection[data-connection=\"polling\"]')").await?;
    assert_eq!(alice.text_of(".connection").await?, "Updating every few seconds");
    alice.watch(&["B7", "B8"]).await?;

    // Another customer holds two seats: they turn held on alice's map.
    let api = Api::new(&server, "server");
    let bob = api.session().await?;
    let held =
        api.post(&format!("/api/shows/{THEATRE}/holds"), Some(&bob), Some(&json!({"seats": ["B7", "B8"]}))).await?;
    held.expect(201, "bob's hold")?;
    alice.turned("B7", "held").await?;
    alice.turned("B8", "held").await?;
    assert!(!alice.is_mine("B7").await?, "bob's, not alice's");
    assert_eq!(alice.alert().await?, "", "no alert while polling");
    let connection = alice.eval("document.querySelector('.connection').dataset.connection").await?;
    assert_eq!(connection, "polling", "still polling: the server still has no stream to spare");
    alice.screenshot("polling").await?;

    // Holding works as ever, and shows as alice's.
    alice.select("C3").await?;
    alice.hold().await?;
    alice.wait_for("C3 alice's", "document.querySelector('[data-seat-id=\"C3\"]').dataset.mine === 'true'").await?;
    alice.close().await?;
    Ok(())
}
