//! The demo show's seat map, drawn by the release web build in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::{Browser, Server, screenshot_dir};

#[tokio::test]
async fn the_demo_theatre_draws_all_160_seats_free() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let browser = Browser::start().await?;
    browser.client.goto(&format!("{}/shows/demo-theatre", server.base_url)).await?;
    let drawn = browser.wait_for("160 seats", "document.querySelectorAll('[data-seat-id]').length === 160").await;
    let shot = browser.screenshot(&screenshot_dir().join("demo-theatre.png")).await?;
    println!("screenshot: {}", shot.display());
    drawn.map_err(|error| error.context(format!("server log:\n{}", server.log())))?;

    let free = browser.eval("document.querySelectorAll('[data-seat-id][data-state=\"free\"]').length").await?;
    assert_eq!(free, 160, "a fresh demo show has every seat free");
    let title = browser.find("h1").await?.text().await?;
    assert!(title.contains("Demo Theatre"), "page title was {title:?}");
    let b7 = browser.eval("document.querySelector('[data-seat-id=\"B7\"]').getAttribute('aria-label')").await?;
    assert_eq!(b7, "Row B, seat 7, available");
    browser.close().await?;
    Ok(())
}

#[tokio::test]
async fn the_show_list_links_to_the_demo_show() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let browser = Browser::start().await?;
    browser.client.goto(&server.base_url).await?;
    browser.wait_for("the show list", "document.querySelector('a[href=\"/shows/demo-theatre\"]')").await?;
    browser.find("a[href=\"/shows/demo-theatre\"]").await?.click().await?;
    browser.wait_for("the seat map", "document.querySelectorAll('[data-seat-id]').length === 160").await?;
    browser.close().await?;
    Ok(())
}
