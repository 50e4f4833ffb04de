//! The framework-free example (`examples/vanilla/`, served from the release
//! UI's dist at `/examples/vanilla/`) against the real server in headless
//! Chromium: the JS package draws the seats, a hold shows its countdown,
//! another customer's hold arrives over the event stream, confirm sells; all
//! under the UI's Content-Security-Policy.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::api::Api;
use seathold_system_tests::{Browser, Server, real_now_ms, screenshot_dir};
use serde_json::json;

const SEAT: &str = "[data-seat-id=\"B7\"]";

#[tokio::test]
async fn the_vanilla_example_holds_a_seat_with_a_countdown_and_confirms_it() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    // Served with the UI's strict policy (no inline script or style), which the page works under.
    let page = reqwest::get(format!("{}/examples/vanilla/", server.base_url)).await?;
    let policy = page.headers().get("content-security-policy").and_then(|v| v.to_str().ok()).unwrap_or("");
    assert!(policy.contains("script-src 'self' 'wasm-unsafe-eval'"), "the example's policy: {policy:?}");
    assert!(page.text().await?.contains("<script type=\"module\" src=\"main.js\">"));
    let browser = Browser::start().await?;
    browser.client.goto(&format!("{}/examples/vanilla/?show=demo-theatre", server.base_url)).await?;
    let drawn = browser
        .wait_for(
            "160 free seats from the package, live",
            "document.querySelectorAll('[data-seat-id][data-state=\"free\"]').length === 160 \
             && document.getElementById('status').textContent === 'Live'",
        )
        .await;
    drawn.map_err(|error| error.context(format!("server log:\n{}", server.log())))?;

    // Another customer holds B8: the page learns it from the event stream.
    let api = Api::new(&server, "server");
    let other = api.session().await?;
    let held = api.post("/api/shows/demo-theatre/holds", Some(&other), Some(&json!({"seats": ["B8"]}))).await?;
    held.expect(201, "the other customer's hold")?;
    browser
        .wait_for("B8 held by someone else", "document.querySelector('[data-seat-id=\"B8\"]').dataset.state === 'held'")
        .await?;
    assert_eq!(browser.eval("document.querySelector('[data-seat-id=\"B8\"]').dataset.mine").await?, "false");

    browser.find(SEAT).await?.click().await?;
    browser.find("#hold").await?.click().await?;
    browser
        .wait_for(
            "B7 mine, with a countdown",
            "document.querySelector('[data-seat-id=\"B7\"]').dataset.mine === 'true' \
             && /^\\d+:\\d\\d$/.test(document.getElementById('countdown').textContent)",
        )
        .await?;
    let shown = browser.eval("document.getElementById('countdown').textContent").await?;
    let shown = shown.as_str().unwrap_or_default();
    let (minutes, seconds) = shown.split_once(':').unwrap();
    let shown_secs: i64 = minutes.parse::<i64>()? * 60 + seconds.parse::<i64>()?;
    let facts = server.seat_facts("demo-theatre").await?;
    let b7 = facts["seats"].as_array().unwrap().iter().find(|seat| seat["id"] == "B7").unwrap();
    let left_secs = (b7["holdExpiresAt"].as_i64().unwrap() - real_now_ms()) / 1000;
    assert!(left_secs > 0, "the server holds B7: {b7}");
    // Never more than the server allows, and less by about the 5 s buffer.
    assert!(shown_secs <= left_secs && shown_secs >= left_secs - 10, "shown {shown}, server {left_secs} s");
    let shot = browser.screenshot(&screenshot_dir().join("vanilla-example-held.png")).await?;
    println!("screenshot: {}", shot.display());

    browser.find("#confirm").await?.click().await?;
    browser.wait_for("B7 sold", &format!("document.querySelector('{SEAT}').dataset.state === 'sold'")).await?;
    let facts = server.seat_facts("demo-theatre").await?;
    let b7 = facts["seats"].as_array().unwrap().iter().find(|seat| seat["id"] == "B7").unwrap();
    assert_eq!(b7["sold"], true, "the server sold B7: {b7}");
    browser.close().await?;
    Ok(())
}
