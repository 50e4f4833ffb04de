//! `cargo xtask bench onsale`, in the browser: the arena's seats live
//! (navigation start → the app's map drawn, `data-seat-id` on all 20,000,
//! and the server's picture `#prepaint` gone) over `LOADS` cold loads,
//! unthrottled and on an emulated 4G link (CDP through ChromeDriver), with
//! the HTTP cache off for every load; beside the plain-DOM page of `bench
//! web` loaded the same way, the same run's baseline. Prints the medians
//! against issue 26's targets and the bytes each load moved.
//!
//! Needs `SEATHOLD_BIN` and `SEATHOLD_WEB_DIST`, as `cargo xtask bench onsale` sets.

use seathold_system_tests::Browser;
use seathold_system_tests::first_render::{ARENA, LOADS, Link, cold_over, first_renders, instrumented_server, summary};

/// Issue 26's targets for the arena's seats live, cold, in milliseconds.
fn target_ms(link: Link) -> f64 {
    match link {
        Link::Unthrottled => 1_500.0,
        Link::FourG => 2_500.0,
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (server, _web) = instrumented_server().await?;
    let browser = Browser::start().await?;
    let outcome = async {
        let base = &server.base_url;
        for link in [Link::Unthrottled, Link::FourG] {
            cold_over(&browser, link).await?;
            let name = link.name();
            // The picture's shapes are `bench web`'s to check (`None`); here only the time counts.
            let plain = first_renders(&browser, base, "/plain-dom.html", None).await?;
            let baseline = summary(&format!("{name}, cold: plain DOM baseline, seats live"), "ms", plain.live);
            summary("  plain DOM: bytes per load", "B", plain.transferred);
            let arena = first_renders(&browser, base, &format!("/shows/{ARENA}"), None).await?;
            summary(&format!("{name}, cold: arena seats painted"), "ms", arena.painted);
            let live = summary(&format!("{name}, cold: arena seats live"), "ms", arena.live);
            summary("  arena: bytes per load (without the live stream)", "B", arena.transferred);
            let target = target_ms(link);
            println!(
                "target arena seats live, cold, {name} ≤ {target:.0} ms: {} (median of {LOADS}: {live:.0} ms, {:.2}× the \
                 plain-DOM baseline's {baseline:.0} ms)",
                if live <= target { "met" } else { "MISSED" },
                live / baseline.max(f64::MIN_POSITIVE)
            );
        }
        anyhow::Ok(())
    }
    .await;
    browser.close().await?;
    outcome
}
