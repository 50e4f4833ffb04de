//! The demo arena as a customer sees it (issue 16): 20,000 seats in
//! sections around the stage with curved rows, drawn whole by the release
//! web build; a screenshot lands in `target/e2e/demo-arena.png`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::{Browser, Server, screenshot_dir};

/// Each seat's name and centre on the map, from its rendered box.
const CENTRES: &str = "[...document.querySelectorAll('[data-seat-id]')].map(s => { const b = s.getBBox(); \
    return [s.getAttribute('aria-label'), b.x + b.width / 2, b.y + b.height / 2]; })";

#[tokio::test]
async fn the_demo_arena_is_a_bowl_of_curved_rows_around_the_stage() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let browser = Browser::start().await?;
    browser.client.goto(&format!("{}/shows/demo-arena", server.base_url)).await?;
    browser.wait_for("20,000 seats", "document.querySelectorAll('[data-seat-id]').length === 20000").await?;
    let shot = browser.screenshot(&screenshot_dir().join("demo-arena.png")).await?;
    println!("screenshot: {}", shot.display());

    let label = browser.eval("document.querySelector('[data-seat-id=\"R1-1\"]').getAttribute('aria-label')").await?;
    assert_eq!(label, "Section 101, row 1, seat 1, available");
    // Every seat is as far from the bowl's centre as the rest of its row (a
    // curve), and the bowl wraps the floor: seats left, right and below it.
    let centres = browser.eval(CENTRES).await?;
    let centres: Vec<(String, f64, f64)> = centres
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_str().unwrap().to_owned(), c[1].as_f64().unwrap(), c[2].as_f64().unwrap()))
        .collect();
    let (xs, ys): (Vec<f64>, Vec<f64>) = centres.iter().map(|(_, x, y)| (*x, *y)).unzip();
    let (left, right) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(f64::MIN, f64::max));
    let (top, bottom) = (ys.iter().copied().fold(f64::MAX, f64::min), ys.iter().copied().fold(f64::MIN, f64::max));
    let (cx, cy) = ((left + right) / 2.0, bottom - (right - left) / 2.0);
    let middle = centres.iter().filter(|(_, x, y)| (x - cx).hypot(y - cy) < (right - left) * 0.1).count();
    assert_eq!(middle, 0, "the floor in the middle has no seats");
    assert!(top < cy, "the bowl reaches up beside the stage");
    let row_one: Vec<f64> = centres
        .iter()
        .filter(|(label, ..)| label.starts_with("Section 101, row 1, "))
        .map(|(_, x, y)| (x - cx).hypot(y - cy))
        .collect();
    assert!(row_one.len() > 5, "section 101's first row: {row_one:?}");
    let spread = row_one.iter().copied().fold(f64::MIN, f64::max) - row_one.iter().copied().fold(f64::MAX, f64::min);
    assert!(spread < 1.0, "section 101's first row keeps its distance from the centre: {row_one:?}");
    // Zoomed in, a section's curved rows and their names read clearly.
    for _ in 0..4 {
        browser.find("button[aria-label=\"Zoom in\"]").await?.click().await?;
    }
    browser.wait_for("a zoomed map", "document.querySelector('svg.seat-map.zoomed')").await?;
    // Over to the lower tier's left, by the minimap.
    browser
        .eval(
            "(() => { const map = document.querySelector('svg.minimap'); const box = map.getBoundingClientRect();
             map.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true,
               clientX: box.left + box.width * 0.3, clientY: box.top + box.height * 0.6}));
             return true; })()",
        )
        .await?;
    let shot = browser.screenshot(&screenshot_dir().join("demo-arena-zoomed.png")).await?;
    println!("screenshot: {}", shot.display());
    browser.close().await?;
    Ok(())
}
