//! Choosing seats without the map: the list picker (section → row → seats),
//! driven by keys only, then the same hold flow as the map; alerts name
//! seats by their labels.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use fantoccini::key::Key;
use seathold_system_tests::api::Api;
use seathold_system_tests::customer::list_seat;
use seathold_system_tests::{Customer, Server};
use serde_json::json;

#[tokio::test]
async fn a_keyboard_user_picks_from_the_list_holds_and_confirms() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let ann = Customer::start(&server, "Ann").await?;
    ann.open("demo-theatre").await?;
    let browser = &ann.browser;

    browser.find("details.seat-list > summary").await?.send_keys(&Key::Enter).await?;
    ann.wait_for("the section picker", "document.querySelector('select[data-list=\"section\"]')").await?;
    // Rows A–C are "premium", D–H "standard": one step down is the second section.
    browser.find("select[data-list=\"section\"]").await?.send_keys(&Key::Down).await?;
    ann.wait_for(
        "Row D offered",
        "document.querySelector('select[data-list=\"row\"]').selectedOptions[0].text === 'Row D'",
    )
    .await?;
    browser.find("select[data-list=\"row\"]").await?.send_keys(&Key::Down).await?;
    ann.wait_for("Row E's seats", &format!("document.querySelector('{}')", list_seat("E5"))).await?;
    let spoken = ann.eval(&format!("document.querySelector('{}').parentElement.textContent", list_seat("E5"))).await?;
    assert_eq!(spoken, "seat 5, available");

    for seat in ["E5", "E6"] {
        browser.find(&list_seat(seat)).await?.send_keys(" ").await?;
        ann.wait_for(
            &format!("{seat} picked on the map"),
            &format!("document.querySelector('[data-seat-id=\"{seat}\"][aria-pressed=\"true\"]')"),
        )
        .await?;
    }

    // Someone else takes E6 meanwhile: the alert names it by its label.
    let api = Api::new(&server, "other");
    let token = api.session().await?;
    api.post("/api/shows/demo-theatre/holds", Some(&token), Some(&json!({"seats": ["E6"]})))
        .await?
        .expect(201, "another customer holds E6")?;
    ann.wait_for("E6 unpicked", &format!("!document.querySelector('{}').checked", list_seat("E6"))).await?;
    let alert = ann.alert().await?;
    assert!(alert.starts_with("Row E, seat 6 (E6) was just taken."), "alert was {alert:?}");

    browser.find("[data-action=\"hold\"]").await?.send_keys(&Key::Enter).await?;
    ann.wait_for("the hold's countdown", "document.querySelector('[data-countdown]')").await?;
    ann.wait_state(&["E5"], "held").await?;
    assert_eq!(ann.eval("document.querySelector('[data-seat-id=\"E5\"]').dataset.mine").await?, "true");
    ann.wait_for(
        "E5 no longer pickable in the list",
        &format!("document.querySelector('{}').disabled", list_seat("E5")),
    )
    .await?;

    ann.wait_for("Confirm enabled", "document.querySelector('[data-action=\"confirm\"]:not([disabled])')").await?;
    browser.find("[data-action=\"confirm\"]").await?.send_keys(&Key::Enter).await?;
    ann.wait_state(&["E5"], "sold").await?;
    let spoken = ann.eval(&format!("document.querySelector('{}').parentElement.textContent", list_seat("E5"))).await?;
    assert_eq!(spoken, "seat 5, yours");
    Ok(())
}
