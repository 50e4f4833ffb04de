//! Black-box checks of the real binary over HTTP, as an integrator sees it.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::Server;

#[tokio::test]
async fn the_binary_serves_the_api_and_the_ui() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let client = reqwest::Client::new();

    let time = client.get(format!("{}/api/time", server.base_url)).send().await?;
    assert_eq!(time.status(), 200);
    let header: i64 = time.headers()["x-server-time"].to_str()?.parse()?;
    let body: serde_json::Value = time.json().await?;
    assert_eq!(body["serverTime"], header);

    let seats: serde_json::Value =
        client.get(format!("{}/api/shows/demo-theatre/seats", server.base_url)).send().await?.json().await?;
    assert_eq!(seats["seats"].as_array().map(Vec::len), Some(160));

    let page = client.get(format!("{}/shows/demo-theatre", server.base_url)).send().await?;
    assert_eq!(page.status(), 200);
    assert!(page.text().await?.contains("<html"), "client-side routes load the app");

    let missing = client.get(format!("{}/api/nope", server.base_url)).send().await?;
    assert_eq!(missing.status(), 404);
    let body: serde_json::Value = missing.json().await?;
    assert_eq!(body["error"], "not_found");
    Ok(())
}

#[tokio::test]
async fn sigterm_stops_the_server_cleanly_even_with_a_live_stream_open() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let mut stream = reqwest::get(format!("{}/api/shows/demo-theatre/events", server.base_url)).await?;
    let first = stream.chunk().await?.unwrap_or_default();
    assert!(String::from_utf8_lossy(&first).contains("event: snapshot"), "{first:?}");
    let status = server.terminate().await?;
    assert!(status.success(), "exit status {status}");
    Ok(())
}
