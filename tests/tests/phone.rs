//! The seat map on a phone: ChromeDriver's mobile emulation at 390×844 with
//! touch. No sideways scroll; the theatre does not fit at a finger's size,
//! so it opens zoomed in (seats of at least 24 px) with a minimap; a seat is
//! held and confirmed by touch alone; the hold panel docks at the bottom.
//! The arena opens on the seats nearest the stage, not on the empty opening.
//! Screenshots land in `target/e2e/`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, PointerAction, TouchActions};
use seathold_system_tests::{Browser, Server, screenshot_dir};

/// A tap: the finger goes down on the element's centre and lifts.
async fn tap(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let element = browser.find(css).await?;
    let finger = TouchActions::new("finger".to_owned())
        .then(PointerAction::MoveToElement { element, duration: None, x: 0.0, y: 0.0 })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(PointerAction::Pause { duration: Duration::from_millis(50) })
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    browser.client.perform_actions(finger).await?;
    Ok(())
}

/// The id of the first free seat wholly on screen inside the map, and its
/// size on screen (CSS pixels).
const VISIBLE_FREE_SEAT: &str = "(() => {
    const map = document.querySelector('svg.seat-map').getBoundingClientRect();
    for (const seat of document.querySelectorAll('[data-seat-id][data-state=\"free\"]')) {
        const r = seat.getBoundingClientRect();
        if (r.left >= map.left && r.right <= map.right && r.top >= map.top && r.bottom <= map.bottom)
            return [seat.dataset.seatId, Math.min(r.width, r.height)];
    }
    return null;
})()";

#[tokio::test]
async fn on_a_phone_a_seat_is_held_and_confirmed_by_touch() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let browser = Browser::start_phone().await?;
    browser.client.goto(&format!("{}/shows/demo-theatre", server.base_url)).await?;
    browser.wait_for("160 seats", "document.querySelectorAll('[data-seat-id]').length === 160").await?;
    assert_eq!(browser.eval("window.innerWidth").await?, 390, "the phone's viewport");
    assert_eq!(browser.eval("matchMedia('(pointer: coarse)').matches").await?, true, "a touch screen");
    browser.wait_for("the map zoomed in for fingers", "document.querySelector('svg.seat-map.zoomed') !== null").await?;
    browser.wait_for("the minimap", "document.querySelector('svg.minimap') !== null").await?;
    let sideways = browser.eval("document.documentElement.scrollWidth - window.innerWidth").await?;
    assert_eq!(sideways, 0, "no sideways scroll");
    browser.screenshot(&screenshot_dir().join("phone-map.png")).await?;

    let found = browser.eval(VISIBLE_FREE_SEAT).await?;
    let seat_id = found[0].as_str().unwrap().to_owned();
    let size = found[1].as_f64().unwrap();
    assert!(size >= 24.0, "{seat_id} is {size:.1} px on screen; a finger needs 24");
    let seat = format!("[data-seat-id=\"{seat_id}\"]");

    tap(&browser, &seat).await?;
    browser.wait_for("picked by a tap", &format!("document.querySelector('{seat}[aria-pressed=\"true\"]')")).await?;
    tap(&browser, "[data-action=\"hold\"]:not([disabled])").await?;
    browser.wait_for("the hold's countdown", "document.querySelector('[data-countdown]')").await?;
    browser
        .wait_for("held for me", &format!("document.querySelector('{seat}[data-state=\"held\"][data-mine=\"true\"]')"))
        .await?;
    let docked = browser
        .eval(
            "(() => { const r = document.querySelector('section.hold').getBoundingClientRect(); \
               return getComputedStyle(document.querySelector('section.hold')).position === 'fixed' \
               && Math.abs(r.bottom - window.innerHeight) < 1; })()",
        )
        .await?;
    assert_eq!(docked, true, "the hold panel docks at the bottom");
    browser.screenshot(&screenshot_dir().join("phone-held.png")).await?;

    browser.wait_for("Confirm enabled", "document.querySelector('[data-action=\"confirm\"]:not([disabled])')").await?;
    tap(&browser, "[data-action=\"confirm\"]").await?;
    browser
        .wait_for("sold to me", &format!("document.querySelector('{seat}[data-state=\"sold\"][data-mine=\"true\"]')"))
        .await?;
    browser.screenshot(&screenshot_dir().join("phone-confirmed.png")).await?;
    browser.close().await?;
    Ok(())
}

/// How many seats are wholly on screen inside the map.
const SEATS_IN_VIEW: &str = "(() => {
    const map = document.querySelector('svg.seat-map').getBoundingClientRect();
    let count = 0;
    for (const seat of document.querySelectorAll('[data-seat-id]')) {
        const r = seat.getBoundingClientRect();
        if (r.left >= map.left && r.right <= map.right && r.top >= map.top && r.bottom <= map.bottom) count += 1;
    }
    return count;
})()";

#[tokio::test]
async fn on_a_phone_the_arena_opens_on_the_seats_nearest_the_stage() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let browser = Browser::start_phone().await?;
    browser.client.goto(&format!("{}/shows/demo-arena", server.base_url)).await?;
    browser.wait_for("20,000 seats", "document.querySelectorAll('[data-seat-id]').length === 20000").await?;
    browser.wait_for("the map zoomed in for fingers", "document.querySelector('svg.seat-map.zoomed') !== null").await?;
    // The top middle of the bowl is the empty opening at the stage: the
    // first view shows seats instead (before the fix it showed none).
    let in_view = browser.eval(SEATS_IN_VIEW).await?.as_u64().unwrap();
    browser.screenshot(&screenshot_dir().join("phone-arena.png")).await?;
    assert!(in_view >= 20, "{in_view} seats on screen when the arena opens on a phone");
    browser.close().await?;
    Ok(())
}
