//! The 200,000-seat demo stadium (issue 36) as a customer meets it: drawn
//! on the canvas, sections first; a keyboard user picks two seats from the
//! list picker, holds them and sees the countdown; another customer's hold
//! reaches the page live; axe finds no barrier. The canvas is never the
//! only way to a seat. Screenshots land in `target/e2e/`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use fantoccini::key::Key;
use seathold_system_tests::api::Api;
use seathold_system_tests::{Customer, Server};
use serde_json::json;

const SHOW: &str = "demo-stadium";

/// Beside a canvas the list's seats are buttons that carry the seat hooks.
fn list_button(id: &str) -> String {
    format!("button[data-list-seat=\"{id}\"]")
}

#[tokio::test]
async fn a_keyboard_user_holds_stadium_seats_from_the_list_and_sees_another_hold_arrive() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let ann = Customer::start(&server, "Ann").await?;
    ann.open(SHOW).await?;
    ann.wait_for("the canvas painted", "document.querySelector('canvas.seat-canvas[data-seats-drawn]')").await?;
    let canvas = "document.querySelector('canvas.seat-canvas')";
    assert_eq!(ann.eval(&format!("{canvas}.dataset.seats")).await?, "200000");
    // Zoomed out, sections are drawn, not 200,000 seats.
    assert_eq!(ann.eval(&format!("{canvas}.dataset.seatsDrawn")).await?, "0");
    println!("screenshot: {}", ann.screenshot("stadium-sections").await?.display());
    let barriers: Vec<_> = ann.audit().await?.into_iter().filter(|v| v.is_barrier()).collect();
    assert!(barriers.is_empty(), "axe on the stadium: {barriers:?}");

    // Keys only: the list picker starts open beside the canvas, on the first row.
    let browser = &ann.browser;
    ann.wait_for("the list picker's seats", "document.querySelector('button[data-list-seat]')").await?;
    // Steps by the venue's own sections: a few dozen rows each, not a tier's thousands.
    let section = ann.eval("document.querySelector('select[data-list=\"section\"]').selectedOptions[0].text").await?;
    assert!(section.as_str().unwrap().starts_with("Section "), "the list's first section is {section}");
    let rows = ann.eval("document.querySelector('select[data-list=\"row\"]').options.length").await?;
    assert!((1..=60).contains(&rows.as_u64().unwrap()), "{rows} rows to step through in one section");
    let listed = "[...document.querySelectorAll('button[data-list-seat]')].map(seat => seat.dataset.listSeat)";
    let row = ann.eval(listed).await?;
    let row: Vec<&str> = row.as_array().unwrap().iter().map(|seat| seat.as_str().unwrap()).collect();
    assert!(row.len() >= 9, "the first row lists {} seats", row.len());
    let (first, second, others) = (row[4], row[5], row[8]);
    let spoken = ann.eval(&format!("document.querySelector('{}').textContent", list_button(first))).await?;
    assert_eq!(spoken, "seat 5, available");
    for seat in [first, second] {
        browser.find(&list_button(seat)).await?.send_keys(" ").await?;
        ann.wait_for(
            &format!("{seat} picked"),
            &format!("document.querySelector('[data-seat-id=\"{seat}\"][aria-pressed=\"true\"]')"),
        )
        .await?;
    }
    browser.find("[data-action=\"hold\"]").await?.send_keys(&Key::Enter).await?;
    ann.wait_for("the hold's countdown", "document.querySelector('[data-countdown]')").await?;
    ann.wait_state(&[first, second], "held").await?;
    assert!(ann.is_mine(first).await? && ann.is_mine(second).await?);
    let remaining = ann.next_tick().await?;
    assert!((1..=600_000).contains(&remaining), "the countdown shows {remaining} ms of a 10-minute hold");

    // Someone else holds a seat of that row: Ann's page shows it taken, not hers.
    let api = Api::new(&server, "other");
    let token = api.session().await?;
    api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&json!({"seats": [others]})))
        .await?
        .expect(201, "another customer's hold")?;
    ann.wait_state(&[others], "held").await?;
    assert!(!ann.is_mine(others).await?);
    let barriers: Vec<_> = ann.audit().await?.into_iter().filter(|v| v.is_barrier()).collect();
    assert!(barriers.is_empty(), "axe with a hold under way: {barriers:?}");
    println!("screenshot: {}", ann.screenshot("stadium-held").await?.display());
    ann.close().await?;
    Ok(())
}
