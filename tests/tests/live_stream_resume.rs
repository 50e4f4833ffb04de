//! The page reads the seat map once: its live stream resumes after the
//! snapshot it loaded (`?lastEventId=`), so no second snapshot comes, and
//! changes made afterwards still arrive, also after the stream broke.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::api::Api;
use seathold_system_tests::{Browser, Server};
use serde_json::json;

/// The URLs the page fetched (the event stream is one of them), as JSON.
const RESOURCES: &str = "performance.getEntriesByType('resource').map(entry => entry.name)";

#[tokio::test]
async fn the_live_stream_resumes_after_the_loaded_snapshot_and_brings_changes_after_a_break() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let api = Api::new(&server, "A");
    let version = server.seat_facts("demo-theatre").await?["version"].as_i64().unwrap();
    let browser = Browser::start().await?;
    browser.client.goto(&format!("{}/shows/demo-theatre", server.base_url)).await?;
    browser.wait_for("the live map", "document.querySelector('[data-connection=\"live\"]')").await?;

    // An open stream is listed only once it ends: end it (the page reopens it).
    browser.eval("(window.stop(), true)").await?;
    let listed = format!("{RESOURCES}.some(url => url.includes('/events'))");
    browser.wait_for("the ended stream in the resource list", &listed).await?;
    let fetched: Vec<String> = serde_json::from_value(browser.eval(RESOURCES).await?)?;
    let streams: Vec<&String> = fetched.iter().filter(|url| url.contains("/events")).take(1).collect();
    assert_eq!(
        streams,
        [&format!("{}/api/shows/demo-theatre/events?format=compact&lastEventId={version}", server.base_url)],
        "the stream resumes after the loaded version; fetched: {fetched:#?}"
    );
    let seat_maps = fetched.iter().filter(|url| url.ends_with("/api/shows/demo-theatre/seats?format=compact")).count();
    assert_eq!(seat_maps, 1, "the seat map is read once; fetched: {fetched:#?}");

    let token = api.session().await?;
    let hold = api.post("/api/shows/demo-theatre/holds", Some(&token), Some(&json!({"seats": ["C4"]}))).await?;
    hold.expect(201, "another customer holds C4")?;
    browser
        .wait_for(
            "C4 held on the open page",
            "document.querySelector('[data-seat-id=\"C4\"]').dataset.state === 'held'",
        )
        .await?;
    browser.close().await?;
    Ok(())
}
