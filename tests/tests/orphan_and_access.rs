//! API.md "Box office (v3)" in a real browser against the real binary, on
//! the demo club (strict orphan rule; E1 and E12 wheelchair places with
//! companion seats E2 and E11): the map warns before Hold when the picked
//! seats would leave one alone, naming it and the shift that avoids it, as
//! the server then refuses; the list's "Wheelchair places" offers the
//! access seats, which the map keeps from everyone else.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::customer::list_seat;
use seathold_system_tests::{Customer, Server};

const CLUB: &str = "demo-club";
const WARNING: &str = "[data-warning=\"strand\"]";

#[tokio::test]
async fn the_map_warns_before_stranding_a_seat_and_offers_wheelchair_places_on_request() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let ann = Customer::start(&server, "ann").await?;
    ann.open(CLUB).await?;

    // A2 and A3 would leave A1 alone at the row's end: warned, with the way out.
    ann.select("A2").await?;
    ann.select("A3").await?;
    ann.wait_for("the warning", &format!("document.querySelector('{WARNING}').textContent.includes('Row A, seat 1')"))
        .await?;
    let warning = ann.text_of(WARNING).await?;
    assert!(warning.starts_with("Holding these seats would leave Row A, seat 1 on its own"), "{warning:?}");
    assert!(
        warning.contains("Shift your seats by 1 seat and pick Row A, seat 1 and Row A, seat 2 instead."),
        "{warning:?}"
    );
    ann.screenshot("strand-warning").await?;

    // The server refuses it just so, in seat-state's words.
    ann.press("hold").await?;
    ann.wait_for("the refusal", "document.querySelector('[role=alert]').textContent.includes('on its own')").await?;
    let alert = ann.alert().await?;
    assert!(alert.contains("Row A, seat 1 (A1)"), "the stranded seat is named: {alert:?}");
    assert_eq!(ann.state_of("A2").await?, "free", "nothing was held");

    // Taking the shift: no warning, and the hold goes through.
    ann.browser.find("[data-seat-id=\"A3\"]").await?.click().await?;
    ann.select("A1").await?;
    ann.wait_for("no warning", &format!("document.querySelector('{WARNING}').textContent === ''")).await?;
    ann.hold().await?;
    ann.wait_state(&["A1", "A2"], "held").await?;

    // Wheelchair places: in the legend, named as such, and kept from Ann.
    let legend = ann.text_of(".legend").await?;
    assert!(legend.contains("Wheelchair place or companion seat"), "{legend:?}");
    assert_eq!(
        ann.seat_name("E1").await?,
        "Row E, seat 1, wheelchair place, kept for wheelchair users and their companions"
    );
    assert_eq!(
        ann.seat_name("E2").await?,
        "Row E, seat 2, companion seat, kept for wheelchair users and their companions"
    );
    ann.close().await?;

    let bob = Customer::start(&server, "bob").await?;
    bob.open(CLUB).await?;
    // Row E is at the bottom, where the selection bar docks: scrolled to the middle first.
    bob.eval("document.querySelector('[data-seat-id=\"E1\"]').scrollIntoView({block: 'center'})").await?;
    bob.browser.find("[data-seat-id=\"E1\"]").await?.click().await?;
    bob.wait_for(
        "why not",
        "document.querySelector('.messages [role=status]').textContent.includes('Wheelchair places')",
    )
    .await?;
    assert!(!bob.is_selected("E1").await?, "not offered without asking");

    // The list picker's filter lists the wheelchair places and companion seats only, and offers them.
    bob.eval("document.querySelector('details.seat-list').open = true").await?;
    bob.wait_for("the filter", "document.querySelector('[data-list-filter=\"wheelchair\"]')").await?;
    bob.browser.find("[data-list-filter=\"wheelchair\"]").await?.click().await?;
    bob.wait_for("E1 listed", &format!("document.querySelector('{}')", list_seat("E1"))).await?;
    let listed =
        bob.eval("[...document.querySelectorAll('[data-list-seat]')].map(box => box.dataset.listSeat)").await?;
    assert_eq!(listed, serde_json::json!(["E1", "E2", "E11", "E12"]), "only access seats");
    let spoken = bob.eval(&format!("document.querySelector('{}').parentElement.textContent", list_seat("E1"))).await?;
    assert_eq!(spoken, "seat 1, wheelchair place, available");
    assert_eq!(bob.seat_name("E1").await?, "Row E, seat 1, wheelchair place, available");
    bob.screenshot("wheelchair-places").await?;
    let barriers: Vec<String> = bob.audit().await?.iter().filter(|v| v.is_barrier()).map(ToString::to_string).collect();
    assert!(barriers.is_empty(), "axe finds no serious barrier with the filter on: {barriers:#?}");
    for seat in ["E1", "E2"] {
        bob.browser.find(&list_seat(seat)).await?.click().await?;
        bob.wait_for(
            &format!("{seat} picked"),
            &format!("document.querySelector('[data-seat-id=\"{seat}\"][aria-pressed=\"true\"]')"),
        )
        .await?;
    }
    bob.hold().await?;
    let holds = bob.holds().await?;
    assert_eq!(holds[0]["seats"], serde_json::json!(["E1", "E2"]), "held with access: {holds:?}");
    bob.close().await?;
    Ok(())
}
