//! The canvas map of a large venue (issue 36), on the 20,000-seat arena
//! drawn as a large venue is (`?map=canvas`): sections first, a click on a
//! section zooms in, a click at a seat's place on the canvas picks it
//! (found by the grid, no DOM node per seat) and it is held; another
//! customer picks a seat from the list picker (whose seats carry the seat
//! hooks there) and holds it, and the first customer's canvas repaints that
//! seat as held. axe finds no barrier. Screenshots land in `target/e2e/`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use seathold_system_tests::{Customer, Server};
use serde_json::Value;

const SHOW: &str = "demo-arena?map=canvas";
/// The canvas's colours for the customer's own seat and another's hold (style.css's).
const MINE: [u8; 3] = [0x5b, 0x2a, 0x86];
const HELD: [u8; 3] = [0x9a, 0x53, 0x00];

/// Where a map point is on screen (client pixels), from the canvas's box
/// and the part of the map it shows (`data-view`, drawn "meet").
fn client_point(x: f64, y: f64) -> String {
    format!(
        "(() => {{ const c = document.querySelector('canvas.seat-canvas'); const r = c.getBoundingClientRect();
           const [vx, vy, vw, vh] = c.dataset.view.split(' ').map(Number);
           const s = Math.min(r.width / vw, r.height / vh);
           return [r.left + (r.width - vw * s) / 2 + ({x} - vx) * s, r.top + (r.height - vh * s) / 2 + ({y} - vy) * s]; }})()"
    )
}

/// Whether the canvas shows `color` (`[r, g, b]`) within 4 CSS pixels of a map point.
fn shows_color(x: f64, y: f64, color: [u8; 3]) -> String {
    format!(
        "(() => {{ const c = document.querySelector('canvas.seat-canvas'); const r = c.getBoundingClientRect();
           const [cx, cy] = {}; const k = c.width / r.width; const half = Math.round(4 * k);
           const d = c.getContext('2d').getImageData(Math.round((cx - r.left) * k) - half,
             Math.round((cy - r.top) * k) - half, 2 * half, 2 * half).data;
           for (let i = 0; i < d.length; i += 4)
             if (d[i] === {} && d[i + 1] === {} && d[i + 2] === {}) return true;
           return false; }})()",
        client_point(x, y),
        color[0],
        color[1],
        color[2]
    )
}

/// A real mouse click (WebDriver actions) at a map point on the canvas.
async fn click_at(customer: &Customer, x: f64, y: f64) -> anyhow::Result<()> {
    let at = customer.eval(&client_point(x, y)).await?;
    let (cx, cy) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    let mouse = MouseActions::new("mouse".to_owned())
        .then(PointerAction::MoveTo { duration: None, x: cx.round(), y: cy.round() })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(PointerAction::Pause { duration: Duration::from_millis(30) })
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    customer.browser.client.perform_actions(mouse).await?;
    Ok(())
}

/// A seat's place on the map, from the show's definition.
async fn place_of(customer: &Customer, seat_id: &str) -> anyhow::Result<(f64, f64)> {
    let show = customer.fetch("/api/shows/demo-arena").await?;
    let seat: &Value = show["seats"].as_array().unwrap().iter().find(|s| s["id"] == seat_id).unwrap();
    Ok((seat["x"].as_f64().unwrap(), seat["y"].as_f64().unwrap()))
}

#[tokio::test]
async fn a_seat_is_held_by_a_click_on_the_canvas_and_another_from_the_list() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let ann = Customer::start(&server, "Ann").await?;
    ann.open(SHOW).await?;
    ann.wait_for("the canvas painted", "document.querySelector('canvas.seat-canvas[data-seats-drawn]')").await?;
    assert_eq!(ann.eval("document.querySelectorAll('svg.seat-map [data-seat-id]').length").await?, 0);
    assert_eq!(ann.eval("document.querySelector('canvas.seat-canvas').dataset.seats").await?, "20000");
    // Zoomed out, sections are drawn, not seats.
    assert_eq!(ann.eval("document.querySelector('canvas.seat-canvas').dataset.seatsDrawn").await?, "0");
    println!("screenshot: {}", ann.screenshot("canvas-sections").await?.display());
    let barriers: Vec<_> = ann.audit().await?.into_iter().filter(|v| v.is_barrier()).collect();
    assert!(barriers.is_empty(), "axe on the canvas venue: {barriers:?}");

    // A click on a section zooms into it; a click at a seat's place picks it.
    let (x, y) = place_of(&ann, "R1-5").await?;
    click_at(&ann, x, y).await?;
    ann.wait_for("seats drawn", "document.querySelector('canvas.seat-canvas').dataset.seatsDrawn > 0").await?;
    let drawn = ann.eval("Number(document.querySelector('canvas.seat-canvas').dataset.seatsDrawn)").await?;
    assert!(drawn.as_f64().unwrap() < 20000.0, "only the seats in view are drawn: {drawn}");
    click_at(&ann, x, y).await?;
    ann.wait_for(
        "R1-5 picked, as the list's seat says",
        "document.querySelector('[data-seat-id=\"R1-5\"][aria-pressed=\"true\"]')",
    )
    .await?;
    let spoken = ann.text_of("[data-map-cursor]").await?;
    assert!(spoken.starts_with("Section 101, row 1, seat 5"), "the live region says {spoken:?}");
    ann.hold().await?;
    ann.wait_state(&["R1-5"], "held").await?;
    assert!(ann.is_mine("R1-5").await?);
    ann.wait_for("R1-5 painted as Ann's", &shows_color(x, y, MINE)).await?;
    println!("screenshot: {}", ann.screenshot("canvas-seats").await?.display());

    // Bob holds R1-9 from the list; Ann's canvas repaints only that seat.
    let repaints = ann.eval("Number(document.querySelector('canvas.seat-canvas').dataset.repaints || 0)").await?;
    let bob = Customer::start(&server, "Bob").await?;
    bob.open(SHOW).await?;
    // The list starts open on the first row; the docked selection bar may cover it.
    bob.eval("document.querySelector('[data-seat-id=\"R1-9\"]').scrollIntoView({block: 'center'})").await?;
    bob.select("R1-9").await?;
    bob.hold().await?;
    bob.wait_state(&["R1-9"], "held").await?;
    ann.wait_state(&["R1-9"], "held").await?;
    let (x9, y9) = place_of(&ann, "R1-9").await?;
    ann.wait_for("R1-9 painted held on Ann's canvas", &shows_color(x9, y9, HELD)).await?;
    ann.wait_for(
        "a partial repaint",
        &format!("Number(document.querySelector('canvas.seat-canvas').dataset.repaints) > {repaints}"),
    )
    .await?;
    assert!(!ann.is_mine("R1-9").await?);
    bob.close().await?;
    ann.close().await?;
    Ok(())
}
